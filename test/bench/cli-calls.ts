import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCacheDirectory } from '#shared/cli/build';
import { percentile, round } from '#test/bench/stats';
import { projectRoot, startServiceProcess } from '#test/support/service-process';

export interface CliCallFigures {
  /** As a user types it after `npm run`. */
  readonly command: string;
  /** From spawning `npm run` to its exit: what the user waits for. */
  readonly npmMs: { readonly median: number; readonly max: number };
  /** The same call without npm: node running the launcher and the bundle, so a heavy import shows apart from npm. */
  readonly bundleMs: { readonly median: number; readonly max: number };
}

export interface CliFigures {
  readonly calls: readonly CliCallFigures[];
  /** Building the four bundles and the launcher with esbuild, as after a source changed. */
  readonly buildMs: number;
  readonly repetitions: number;
}

/** Read-only calls, so that every repetition does the same work; each talks to the API but `call --help`. */
const commands: readonly (readonly string[])[] = [
  ['call', '--help'],
  ['call', 'GET', '/organization/v3/directories'],
  ['app', 'policy'],
  ['authenticator', 'pending'],
  ['admin', 'org', 'list'],
];

/**
 * Each CLI as a user runs it in a second terminal: `npm run <cli> -- …` against the local runtime in a process of its
 * own, found from the runtime's record in the data directory, timed from spawn to exit.
 */
export async function benchCliCalls(repetitions: number): Promise<CliFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-cli-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  // Only the data directory: the CLIs find the runtime from its record, as `npm run` in another terminal would.
  const env = { ...process.env, DATA_DIR: dataDir, PORT: '', BASE_URL: '', NODE_NO_WARNINGS: '1' };
  const run = (file: string, args: readonly string[]) => {
    const started = performance.now();
    const result = spawnSync(file, args, { cwd: projectRoot, env, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (result.status !== 0) {
      throw new Error(`${file} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    }
    return { ms, stdout: result.stdout };
  };
  try {
    const buildMs = run('sh', ['shared/cli/run.sh', '--build']).ms;
    const setup = run('sh', ['shared/cli/run.sh', 'app', 'setup']).stdout;
    const link = /npm run authenticator -- (link .+)/.exec(setup)?.[1];
    if (!link) throw new Error(`app setup printed no link command:\n${setup}`);
    run('sh', ['shared/cli/run.sh', 'authenticator', ...link.split(' ')]);

    const launcher = join(cliCacheDirectory(projectRoot), 'launch.mjs');
    const calls = commands.map(([name, ...args]) => {
      const npm = times(repetitions, () => run('npm', ['run', '--silent', name as string, '--', ...args]).ms);
      const bundle = times(repetitions, () => run(process.execPath, [launcher, name as string, ...args]).ms);
      return { command: [name, ...args].join(' '), npmMs: summary(npm), bundleMs: summary(bundle) };
    });
    return { calls, buildMs: round(buildMs, 0), repetitions };
  } finally {
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}

function times(count: number, measure: () => number): number[] {
  return Array.from({ length: count }, measure);
}

function summary(values: readonly number[]): { median: number; max: number } {
  return { median: round(percentile(values, 50), 0), max: round(Math.max(...values), 0) };
}
