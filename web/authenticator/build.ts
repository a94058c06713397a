import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { iconPng } from './icons.ts';

/**
 * The web authenticator's build: esbuild bundles the page and its service worker, every file the page loads gets a
 * content hash in its name (cached for good), and `assets.json` lists each file the server may answer with, its
 * content type, cache policy and hash. Run it with `npm run build:web`; `npm start` and the CDK bundling run it with
 * `--if-stale`, which rebuilds only when a source's content changed.
 */

const source = dirname(fileURLToPath(import.meta.url));
const root = resolve(source, '../..');

/** Where the build goes (gitignored); the server reads it, and the CDK bundling copies it next to the function. */
export const webAuthenticatorOutput = join(root, '.tmp/web/authenticator');

/** The file listing what the server serves, inside the output directory. */
export const assetManifestName = 'assets.json';

/** How long a browser may keep a file: for good (its name changes with its content), or never without asking. */
export type CachePolicy = 'immutable' | 'no-cache';

export interface BuiltFile {
  readonly type: string;
  readonly cache: CachePolicy;
  /** Hex SHA-256 of the content: the ETag, and the check that the file is the one built. */
  readonly sha256: string;
  readonly bytes: number;
}

/** `assets.json`: every file the server answers with, by its path under `/authenticator/`. */
export interface AssetManifest {
  readonly files: Readonly<Record<string, BuiltFile>>;
}

/** What a build made, for the build's own report and the tests. */
export interface BuildReport {
  readonly outdir: string;
  readonly manifest: AssetManifest;
  /** The page's JavaScript (bundle and service worker), gzipped at the highest level. */
  readonly javascriptGzipBytes: number;
}

export const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
};

/** The icons, by the names the templates use for them. */
const icons = {
  'icon-192.png': { size: 192, radius: 0.1875 },
  'icon-512.png': { size: 512, radius: 0.1875 },
  'icon-maskable-512.png': { size: 512, maskable: true },
  // iOS rounds the corners itself and shows transparency as black.
  'apple-touch-icon.png': { size: 180 },
} as const;

/** Browsers this targets: those with Web Push on a home-screen app (Safari 16.4) and WebAuthn's JSON helpers aside. */
export const browserTargets = ['es2022', 'chrome109', 'edge109', 'firefox115', 'safari16.4'];

const sha256 = (content: Uint8Array | string) => createHash('sha256').update(content).digest('hex');
export const hashedName = (name: string, content: Uint8Array) =>
  `${name.slice(0, -extname(name).length)}-${sha256(content).slice(0, 10)}${extname(name)}`;

/** Builds the web authenticator into `outdir` (by default `.tmp/web/authenticator/`), replacing what was there. */
export async function buildWebAuthenticator(outdir = webAuthenticatorOutput): Promise<BuildReport> {
  const esbuild = await import('esbuild');
  const page = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [
      { in: join(source, 'main.ts'), out: 'app' },
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
  /** How the templates name each file (`./main.ts`) → the name it is served under. */
  const names = new Map<string, string>();
  for (const output of page.outputFiles) {
    const name = basename(output.path);
    files.set(name, { content: output.contents, cache: 'immutable' });
    const entryPoint = page.metafile.outputs[relative(root, output.path)]?.entryPoint;
    if (entryPoint) names.set(basename(entryPoint), name);
  }
  for (const [name, options] of Object.entries(icons)) {
    const content = iconPng(options);
    const served = hashedName(name, content);
    files.set(served, { content, cache: 'immutable' });
    names.set(name, served);
  }

  const manifestTemplate = await readFile(join(source, 'manifest.webmanifest'), 'utf8');
  const webManifest = JSON.parse(manifestTemplate) as { icons: { src: string }[] };
  for (const icon of webManifest.icons) icon.src = `./${servedName(names, icon.src)}`;
  files.set('manifest.webmanifest', {
    content: Buffer.from(`${JSON.stringify(webManifest, null, 2)}\n`),
    cache: 'no-cache',
  });
  names.set('manifest.webmanifest', 'manifest.webmanifest');

  const template = await readFile(join(source, 'index.html'), 'utf8');
  files.set('index.html', { content: Buffer.from(rewriteIndex(template, names)), cache: 'no-cache' });

  const precached = [...files].filter(([, file]) => file.cache === 'immutable').map(([name]) => name);
  const appShell = {
    version: sha256(precached.sort().join('\n')).slice(0, 16),
    assets: precached.map((name) => `./${name}`),
    icon: `./${servedName(names, 'icon-192.png')}`,
  };
  const worker = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(source, 'sw/sw.ts')],
    outfile: join(outdir, 'sw.js'),
    bundle: true,
    minify: true,
    // A classic worker: module service workers are still missing from some browsers the page targets.
    format: 'iife',
    platform: 'browser',
    target: browserTargets,
    define: { APP_SHELL: JSON.stringify(appShell) },
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const sw = worker.outputFiles[0];
  if (!sw) throw new Error('esbuild wrote no service worker');
  files.set('sw.js', { content: sw.contents, cache: 'no-cache' });

  const manifest = await writeSite(outdir, files);

  const inputs = [
    // esbuild's virtual modules (`<define:…>`) are no files.
    ...[...Object.keys(page.metafile.inputs), ...Object.keys(worker.metafile.inputs)].filter(
      (path) => !path.startsWith('<'),
    ),
    ...['index.html', 'manifest.webmanifest', 'build.ts', 'icons.ts'].map((name) =>
      relative(root, join(source, name)),
    ),
  ];
  await recordInputs(outdir, inputs);
  return { outdir, manifest, javascriptGzipBytes: javascriptGzipBytes(files) };
}

/** A file a build makes, by the name it is served under. */
export type SiteFiles = ReadonlyMap<string, { readonly content: Uint8Array; readonly cache: CachePolicy }>;

/**
 * Writes a built site into `outdir`, replacing what was there, with `assets.json` listing each file's content type,
 * cache policy and hash; returns that manifest. Built aside and then moved in place, so that a server reading the
 * directory never sees half a build.
 */
export async function writeSite(outdir: string, files: SiteFiles): Promise<AssetManifest> {
  const manifest: AssetManifest = {
    files: Object.fromEntries(
      [...files]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, file]) => [
          name,
          {
            type: contentTypes[extname(name)] ?? 'application/octet-stream',
            cache: file.cache,
            sha256: sha256(file.content),
            bytes: file.content.length,
          },
        ]),
    ),
  };
  const staging = `${outdir}.building-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  for (const [name, file] of files) await writeFile(join(staging, name), file.content);
  await writeFile(join(staging, assetManifestName), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(outdir, { recursive: true, force: true });
  await rename(staging, outdir);
  return manifest;
}

/** Records beside `outdir` what the build was made from (paths under the project), for `isSiteCurrent`. */
export async function recordInputs(outdir: string, inputs: readonly string[]): Promise<void> {
  await writeFile(inputsFile(outdir), `${JSON.stringify(await hashInputs(inputs), null, 2)}\n`);
}

/** The site's JavaScript, gzipped at the highest level: what a browser downloads, held to the issue's budget. */
export function javascriptGzipBytes(files: SiteFiles): number {
  return [...files]
    .filter(([name]) => name.endsWith('.js'))
    .reduce((total, [, file]) => total + gzipSync(file.content, { level: 9 }).length, 0);
}

function servedName(
  names: ReadonlyMap<string, string>,
  reference: string,
  template = 'web/authenticator/index.html',
): string {
  const name = names.get(reference.replace(/^\.\//, ''));
  if (!name) throw new Error(`${template}: ${reference} is not a file the build makes`);
  return name;
}

/**
 * The page's HTML with each local reference pointing at its built file. The Content-Security-Policy allows no inline
 * script or style, so the build refuses a template that has any rather than ship a page the browser would break.
 */
export function rewriteIndex(
  template: string,
  names: ReadonlyMap<string, string>,
  path = 'web/authenticator/index.html',
): string {
  const inline = /<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=|javascript:/i.exec(template);
  if (inline) throw new Error(`${path}: inline script or style (${inline[0]})`);
  return template.replace(
    /\b(href|src)="([^"]*)"/g,
    (_, attribute: string, reference: string) => `${attribute}="./${servedName(names, reference, path)}"`,
  );
}

/** Where a build records what it was made from: beside the output, which the server copies whole. */
function inputsFile(outdir: string): string {
  return `${outdir}.inputs.json`;
}

async function hashInputs(paths: readonly string[]): Promise<Record<string, string | null>> {
  const inputs: Record<string, string | null> = {};
  for (const path of [...new Set(paths)].sort()) {
    inputs[path] = await readFile(join(root, path)).then(sha256, () => null);
  }
  return inputs;
}

/** Whether `outdir` holds a build of the current sources: it exists, and every input still has its content. */
export async function isWebAuthenticatorCurrent(outdir = webAuthenticatorOutput): Promise<boolean> {
  return isSiteCurrent(outdir);
}

/** Whether `outdir` holds a build of its recorded inputs' current content (see `recordInputs`). */
export async function isSiteCurrent(outdir: string): Promise<boolean> {
  try {
    await readFile(join(outdir, assetManifestName));
    const recorded = JSON.parse(await readFile(inputsFile(outdir), 'utf8')) as Record<string, string | null>;
    const current = await hashInputs(Object.keys(recorded));
    return Object.entries(recorded).every(([path, hash]) => hash !== null && current[path] === hash);
  } catch {
    return false;
  }
}

/** Builds unless the build is current; says whether it built. */
export async function ensureWebAuthenticator(
  outdir = webAuthenticatorOutput,
): Promise<BuildReport | undefined> {
  return (await isWebAuthenticatorCurrent(outdir)) ? undefined : buildWebAuthenticator(outdir);
}

/** One line for the build's output: the files and the JavaScript a browser downloads. */
export function describeBuild(report: BuildReport): string {
  const count = Object.keys(report.manifest.files).length;
  const kb = (report.javascriptGzipBytes / 1024).toFixed(1);
  return `web authenticator: ${count} files in ${relative(process.cwd(), report.outdir) || '.'}, JavaScript ${kb} KB gzipped`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const ifStale = process.argv.includes('--if-stale');
  const report = ifStale ? await ensureWebAuthenticator() : await buildWebAuthenticator();
  if (report) process.stdout.write(`${describeBuild(report)}\n`);
}
