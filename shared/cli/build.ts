import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The CLIs' bundles. Loading the TypeScript sources through tsx on every call costs a few hundred milliseconds; one
 * esbuild bundle per CLI (the packages left in node_modules) starts in a fraction of that. A build is kept under a
 * key made of its sources' contents, so a changed source is rebuilt on the next call and a build is never half seen.
 */

export const cliNames = ['call', 'app', 'authenticator', 'admin'] as const;
export type CliName = (typeof cliNames)[number];

/** What a build was made from: each input file (relative to the project root) with its content's hash. */
export interface BuildManifest {
  readonly key: string;
  readonly inputs: Readonly<Record<string, string>>;
}

/**
 * Under node_modules: git, eslint, prettier, tsc and coverage leave it alone, `npm ci` clears it, and the packages a
 * bundle leaves out resolve from the project's node_modules.
 */
export function cliCacheDirectory(root: string): string {
  // MFA_CLI_CACHE: another folder under node_modules, for a test that must not touch the bundles other tests run.
  return process.env.MFA_CLI_CACHE ?? join(root, 'node_modules', '.cache', 'mfa-cli');
}

const manifestName = 'manifest.json';
/** Older builds go once they are this old: a process started on one may still load its lazy chunks. */
const staleBuildMs = 10 * 60 * 1000;

/** The manifest of the current build, if there is one. */
export async function readBuildManifest(root: string): Promise<BuildManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(cliCacheDirectory(root), manifestName), 'utf8')) as BuildManifest;
  } catch {
    return undefined;
  }
}

/** Whether every input still has the content the build was made from. */
export async function isCurrent(root: string, manifest: BuildManifest): Promise<boolean> {
  const paths = Object.keys(manifest.inputs);
  const hashes = await hashFiles(root, paths);
  return hashes !== undefined && paths.every((path) => hashes[path] === manifest.inputs[path]);
}

/** Builds the four CLIs and the launcher that runs them, and makes that build the current one. */
export async function buildClis(root: string): Promise<BuildManifest> {
  const esbuild = await import('esbuild');
  const cache = cliCacheDirectory(root);
  await mkdir(cache, { recursive: true });
  const staging = join(cache, `building-${randomUUID()}`);
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'warning',
  } as const;
  try {
    const [clis, launcher] = await Promise.all([
      esbuild.build({
        ...common,
        entryPoints: cliNames.map((name) => `shared/cli/${name}.ts`),
        // admin loads what each command needs only when it runs: chunks keep that lazy.
        splitting: true,
        outdir: staging,
        outExtension: { '.js': '.mjs' },
      }),
      esbuild.build({
        ...common,
        entryPoints: ['shared/cli/launch.ts'],
        outfile: join(staging, 'launch.mjs'),
      }),
    ]);
    const paths = [
      ...new Set([
        ...Object.keys(clis.metafile.inputs),
        ...Object.keys(launcher.metafile.inputs),
        'package.json',
      ]),
    ].sort();
    const inputs = await hashFiles(root, paths);
    if (!inputs) throw new Error('a source changed while the CLIs were built');
    const manifest: BuildManifest = { key: keyOf(inputs), inputs };
    const target = join(cache, manifest.key);
    // Two calls may build the same sources at once: the first to finish keeps its build, the other drops its own.
    await rename(staging, target).catch(() => undefined);
    await replaceFile(join(cache, 'launch.mjs'), await readFile(join(target, 'launch.mjs')));
    await replaceFile(join(cache, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
    await removeStaleBuilds(cache, manifest.key);
    return manifest;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function hashFiles(
  root: string,
  paths: readonly string[],
): Promise<Record<string, string> | undefined> {
  try {
    const hashes = await Promise.all(
      paths.map(async (path) =>
        createHash('sha256')
          .update(await readFile(join(root, path)))
          .digest('hex'),
      ),
    );
    return Object.fromEntries(paths.map((path, index) => [path, hashes[index] as string]));
  } catch {
    return undefined;
  }
}

function keyOf(inputs: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const [path, digest] of Object.entries(inputs).sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`${path}\0${digest}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** Written beside and renamed, so a concurrent call reads the old file or the new one, never half of one. */
async function replaceFile(path: string, content: string | Buffer): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, content);
  await rename(temporary, path);
}

async function removeStaleBuilds(cache: string, current: string): Promise<void> {
  const now = Date.now();
  for (const entry of await readdir(cache, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === current) continue;
    const path = join(cache, entry.name);
    const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: now }));
    if (now - mtimeMs > staleBuildMs) await rm(path, { recursive: true, force: true });
  }
}
