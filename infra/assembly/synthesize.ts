import { execFile } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withFolderLock } from '#infra/assembly/folder-lock';

const run = promisify(execFile);

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Where `npm start -- --assembly` synthesizes: apart from `cdk.out`, since it synthesizes with settings of its own. */
export const localAssemblyDirectory = join(projectRoot, '.tmp', 'assembly', 'cdk.out');

/**
 * The context of the local synthesis: the operator's settings for a deployment whose webhooks and pushes go to
 * receivers on this machine over plain http, with a VAPID contact push services take (the default, the API's base URL,
 * is plain http here). Everything else is the default an operator deploys.
 */
export const localAssemblyContext: Readonly<Record<string, string>> = {
  allowHttpWebhooks: 'true',
  webhookAllowedNetworks: '127.0.0.0/8,::1/128',
  pushContact: 'mailto:postmaster@example.com',
};

/** What the cloud assembly is made from: a change to any of these makes it stale. */
const sources = [
  'infra',
  'functions',
  'shared',
  'web',
  'package.json',
  'package-lock.json',
  'cdk.json',
  'tsconfig.json',
];
/** What runs it, locally: no part of the assembly. */
const runners = new Set(['infra/local', 'infra/assembly'].map((folder) => resolve(projectRoot, folder)));
const record = 'local-synth.json';

/**
 * The local cloud assembly, synthesized by `cdk synth` with {@link localAssemblyContext} when it is missing, was made
 * with other settings, or is older than any of its sources; reused otherwise. One synthesis at a time across
 * processes.
 */
export async function ensureLocalAssembly(log: (line: string) => void = () => undefined): Promise<string> {
  const directory = localAssemblyDirectory;
  return withFolderLock(`${directory}.lock`, async () => {
    const newest = await newestSource();
    const made = await readFile(join(directory, record), 'utf8').then(
      (text) => JSON.parse(text) as { context: Record<string, string>; sourcesAt: number },
      () => undefined,
    );
    if (
      made &&
      made.sourcesAt >= newest &&
      JSON.stringify(made.context) === JSON.stringify(localAssemblyContext)
    )
      return directory;
    log(`Synthesizing the cloud assembly into ${directory} (cdk synth, about two minutes)`);
    const context = Object.entries(localAssemblyContext).flatMap(([name, value]) => [
      '-c',
      `${name}=${value}`,
    ]);
    await run(
      join(projectRoot, 'node_modules', '.bin', 'cdk'),
      ['synth', '--quiet', '--output', directory, ...context],
      {
        cwd: projectRoot,
        env: { ...process.env, AWS_EC2_METADATA_DISABLED: 'true' },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 15 * 60_000,
      },
    );
    await writeFile(
      join(directory, record),
      `${JSON.stringify({ context: localAssemblyContext, sourcesAt: newest })}\n`,
    );
    return directory;
  });
}

/** The newest modification time among the assembly's sources, in milliseconds. */
async function newestSource(): Promise<number> {
  let newest = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) {
      if (runners.has(path)) return;
      for (const entry of await readdir(path)) {
        if (entry === 'node_modules' || entry.startsWith('.')) continue;
        await visit(join(path, entry));
      }
    } else newest = Math.max(newest, info.mtimeMs);
  };
  await Promise.all(sources.map((source) => visit(resolve(projectRoot, source))));
  return newest;
}
