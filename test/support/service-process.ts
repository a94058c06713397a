import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '#shared/client/api-client';
import { keyId } from '#shared/protocol/kid';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly organizationId: string;
  readonly privateKeyPath: string;
  readonly banner: string;
  /** Sends a signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `npm start`'s entry point as its own process, as a user would (with `--assembly` under `npm run test:assembly`),
 * and waits for its banner.
 */
export function startServiceProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const runtimeArgs = process.env.TEST_RUNTIME === 'assembly' ? ['--assembly', ...args] : args;
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', ...runtimeArgs], {
    cwd: projectRoot,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', NODE_NO_WARNINGS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ctrl-C stops the service.')) return;
      clearTimeout(timer);
      const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(output)?.[1] ?? '';
      resolve({
        child,
        baseUrl: field('Base URL'),
        organizationId: field('Organization id'),
        privateKeyPath: field('Organization key'),
        banner: output,
        async stop(signal = 'SIGINT') {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before its banner:\n${output}`));
    });
  });
}

/**
 * The organization `npm start` made for a service process: a client that signs as it, and its private key by kid, to
 * open what the service encrypts to it (webhooks, authorization responses).
 */
export async function demoOrganization(
  service: Pick<ServiceProcess, 'baseUrl' | 'organizationId' | 'privateKeyPath'>,
): Promise<{ client: ApiClient; keys: Map<string, KeyObject> }> {
  const privateKeyPem = await readFile(service.privateKeyPath, 'utf8');
  const privateKey = createPrivateKey(privateKeyPem);
  return {
    client: new ApiClient({
      baseUrl: service.baseUrl,
      issuer: `org:${service.organizationId}`,
      privateKeyPem,
    }),
    keys: new Map([[keyId(privateKey), privateKey]]),
  };
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one of the project's CLIs (shared/cli/<name>.ts) as `npm run <name>` would, and collects what it printed. */
export function runCli(name: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `shared/cli/${name}.ts`, ...args],
      { cwd: projectRoot, env: { ...process.env, NODE_NO_WARNINGS: '1', ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs the admin CLI and parses its JSON output. */
export async function admin(args: string[]): Promise<unknown> {
  const run = await runCli('admin', [...args, '--json']);
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * Lifts a directory's per-user rate limit to its ceiling, through the admin CLI beside the runtime of `dataDir`: loads
 * ask one user far more often than a person ever is, which the default limit exists to refuse.
 */
export async function liftRateLimit(directoryId: string, dataDir: string): Promise<void> {
  await admin([
    'directory',
    'settings',
    '--directory',
    directoryId,
    '--rate-limit',
    '10000/60',
    '--data-dir',
    dataDir,
  ]);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs one of the project's CLIs as `npm run <name>` does, from its esbuild bundle (shared/cli/run.sh builds it when
 * a source changed), without npm's own start-up. A variable given as undefined is removed from the environment.
 */
export function runBuiltCli(
  name: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [variable, value] of Object.entries(env)) if (value === undefined) delete environment[variable];
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['shared/cli/run.sh', name, ...args],
      { cwd: projectRoot, env: environment },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}
