import { readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type BuildReport,
  browserTargets,
  type CachePolicy,
  hashedName,
  isSiteCurrent,
  javascriptGzipBytes,
  recordInputs,
  rewriteIndex,
  writeSite,
} from '../authenticator/build.ts';
import { iconPng } from '../authenticator/icons.ts';

/**
 * The console's pages, built as the web authenticator is (web/authenticator/build.ts): esbuild bundles the page, every
 * file it loads gets a content hash in its name, and `assets.json` lists what the server may answer with. No service
 * worker and no manifest: the console is a page to sign in to, not an app to install.
 */

const source = dirname(fileURLToPath(import.meta.url));
const root = resolve(source, '../..');

/** Where the build goes (gitignored); the server reads it, and the CDK bundling copies it next to the function. */
export const webConsoleOutput = join(root, '.tmp/web/console');

/** Builds the console's pages into `outdir` (by default `.tmp/web/console/`), replacing what was there. */
export async function buildWebConsole(outdir = webConsoleOutput): Promise<BuildReport> {
  const esbuild = await import('esbuild');
  const page = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [
      { in: join(source, 'main.ts'), out: 'console' },
      { in: join(source, 'style.css'), out: 'style' },
    ],
    entryNames: '[name]-[hash]',
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: browserTargets,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const files = new Map<string, { content: Uint8Array; cache: CachePolicy }>();
  const names = new Map<string, string>();
  for (const output of page.outputFiles) {
    const name = basename(output.path);
    files.set(name, { content: output.contents, cache: 'immutable' });
    const entryPoint = page.metafile.outputs[relative(root, output.path)]?.entryPoint;
    if (entryPoint) names.set(basename(entryPoint), name);
  }
  const icon = iconPng({ size: 64, radius: 0.1875 });
  files.set(hashedName('icon.png', icon), { content: icon, cache: 'immutable' });
  names.set('icon.png', hashedName('icon.png', icon));
  const template = await readFile(join(source, 'index.html'), 'utf8');
  files.set('index.html', {
    content: Buffer.from(rewriteIndex(template, names, 'web/console/index.html')),
    cache: 'no-cache',
  });

  const manifest = await writeSite(outdir, files);
  await recordInputs(outdir, [
    ...Object.keys(page.metafile.inputs),
    ...['index.html', 'build.ts'].map((name) => relative(root, join(source, name))),
    'web/authenticator/build.ts',
    'web/authenticator/icons.ts',
  ]);
  return { outdir, manifest, javascriptGzipBytes: javascriptGzipBytes(files) };
}

/** Builds unless the build is current; says whether it built. */
export async function ensureWebConsole(outdir = webConsoleOutput): Promise<BuildReport | undefined> {
  return (await isSiteCurrent(outdir)) ? undefined : buildWebConsole(outdir);
}

/** One line for the build's output: the files and the JavaScript a browser downloads. */
export function describeConsoleBuild(report: BuildReport): string {
  const count = Object.keys(report.manifest.files).length;
  const kb = (report.javascriptGzipBytes / 1024).toFixed(1);
  return `console pages: ${count} files in ${relative(process.cwd(), report.outdir) || '.'}, JavaScript ${kb} KB gzipped`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const report = process.argv.includes('--if-stale') ? await ensureWebConsole() : await buildWebConsole();
  if (report) process.stdout.write(`${describeConsoleBuild(report)}\n`);
}
