import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testsRunAssembly } from '#test/support/runtime';
import {
  type CliRun,
  freePort,
  projectRoot,
  runBuiltCli,
  type ServiceProcess,
  startServiceProcess,
} from '#test/support/service-process';
import { until } from '#test/support/waiting';

/**
 * The CLIs and `npm start` as a person lives with them in two terminals: README lines run as written, output a person
 * reads, and failures that say what happened.
 */

let scratch: string;
let dataDir: string;
let running: ServiceProcess;
/** Everything terminal 1 printed after its banner. */
let terminalOne = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mfa-terminal-'));
  dataDir = join(scratch, 'data');
  // Terminal 1 as a user sees it: info records printed (the other tests silence them).
  running = await startServiceProcess(['--port', '0', '--data-dir', dataDir], {
    POWERTOOLS_LOG_LEVEL: 'INFO',
  });
  running.child.stdout?.on('data', (chunk: Buffer) => {
    terminalOne += chunk.toString();
  });
  running.child.stderr?.on('data', (chunk: Buffer) => {
    terminalOne += chunk.toString();
  });
  // Bundles built now, from today's sources: no test below sees the first call's rebuild note.
  await runBuiltCli('call', ['--help']);
}, 120_000);
afterAll(async () => {
  await running?.stop('SIGINT');
  await rm(scratch, { recursive: true, force: true });
});

/** Terminal 2: the data directory alone finds the runtime. */
function cli(name: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runBuiltCli(name, args, { PORT: undefined, BASE_URL: undefined, DATA_DIR: dataDir, ...env });
}

function succeeded(run: CliRun): string {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

/** A shell command line in the project, as typed in a terminal. */
function shell(line: string, env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [variable, value] of Object.entries(env)) if (value === undefined) delete environment[variable];
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd: projectRoot, env: environment }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The lines of the README's shell blocks that pipe a CLI's output into another command. */
async function readmePipedLines(): Promise<string[]> {
  const readme = await readFile(join(projectRoot, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  return blocks.flatMap((block) => block.split('\n')).filter((line) => /^npm run .*\| /.test(line));
}

describe("the README's piped CLI lines", () => {
  it('run as written: what the pipe reads is the CLI output alone', async () => {
    succeeded(await cli('app', ['setup']));
    const lines = await readmePipedLines();
    expect(lines).toContainEqual(expect.stringContaining('admin -- audit | jq'));
    for (const line of lines) {
      const run = await shell(line, { DATA_DIR: dataDir, PORT: undefined, BASE_URL: undefined });
      // jq exits 0 only when all it read was JSON, and prints one row per record.
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+\tPOST \/organization\/v3\/directories\t201$/m);
    }
  }, 120_000);
});

describe('app setup', () => {
  it('prints the web authenticator URL with the code, at localhost where passkeys work', async () => {
    const printed = succeeded(await cli('app', ['setup', '--user', 'browser-user']));
    const code = /--code (\S+)/.exec(printed)?.[1] as string;
    const origin = running.baseUrl.replace('127.0.0.1', 'localhost');
    expect(origin).toMatch(/^http:\/\/localhost:\d+$/);
    expect(printed).toContain(`Or in a browser, open:\n  ${origin}/authenticator/#code=${code}\n`);
  }, 60_000);
});

describe('authenticator configure', () => {
  it('prints what changed, one setting a line, the whole with --json, and --reset goes back to setup', async () => {
    const state = join(scratch, 'configured.json');
    const link = /npm run authenticator -- (link .+)/.exec(
      succeeded(await cli('app', ['setup', '--user', 'configured'])),
    )?.[1] as string;
    succeeded(await cli('authenticator', [...link.split(' '), '--state', state]));
    const configure = async (...args: string[]) =>
      succeeded(await cli('authenticator', ['configure', ...args, '--state', state]));

    expect(await configure('--failing', 'pin_code')).toBe('pin_code verification: passes → fails\n');
    expect(await configure('--busy-local', 'yes', '--location', '36.1,-115.2')).toBe(
      'location: none → 36.1,-115.2\nbusy with a local request: no → yes\n',
    );
    expect(await configure('--busy-local', 'yes')).toBe('Nothing changed.\n');
    expect(await configure('--reset')).toBe(
      'pin_code verification: fails → passes\nlocation: 36.1,-115.2 → none\nbusy with a local request: yes → no\n',
    );
    expect(await configure('--reset')).toBe('Nothing changed.\n');
    expect(JSON.parse(await configure('--json'))).toEqual({
      methods: {
        wearables: { set: false },
        geofencing: { set: false },
        locations: { set: false },
        pin_code: { set: true },
        circle_code: { set: false },
        face: { set: false },
        fingerprint: { set: true },
      },
    });
    const help = succeeded(await cli('authenticator', ['--help']));
    expect(help).toContain('configure [--reset] [options] [--json]');
  }, 120_000);
});

describe('the CLI launcher', () => {
  it('says on stderr alone that it builds the CLIs, and rebuilds them after a source changed', async () => {
    // Bundles of its own, so that the other tests' calls never meet this one's rebuild.
    const cache = join(projectRoot, 'node_modules', '.cache', `mfa-cli-test-${crypto.randomUUID()}`);
    const call = () => cli('call', ['GET', '/organization/v3/directories'], { MFA_CLI_CACHE: cache });
    try {
      const built = await call();
      expect(built.stderr).toBe('building the CLI (first run)…\n');
      expect(built.code).toBe(0);
      const manifestPath = join(cache, 'manifest.json');
      const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { inputs: Record<string, string> };
      // As after an edit of call.ts: the build's record of that source no longer matches it.
      manifest.inputs['shared/cli/call.ts'] = 'edited';
      await writeFile(manifestPath, JSON.stringify(manifest));
      const rebuilt = await call();
      expect(rebuilt).toEqual({
        code: 0,
        stdout: built.stdout,
        stderr: 'rebuilding the CLI after source changes…\n',
      });
      expect(await call()).toEqual({ code: 0, stdout: built.stdout, stderr: '' });
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the CLIs pointed at a server that is not this API', () => {
  let server: Server;
  let notFound: string;
  let page: string;

  beforeAll(async () => {
    // One web server, two faces: 404 pages under /missing, a 200 page for everything else.
    server = createHttpServer((request, response) => {
      const missing = request.url?.startsWith('/missing/') ?? false;
      response.writeHead(missing ? 404 : 200, { 'content-type': 'text/html' });
      response.end(missing ? '<h1>Not Found</h1>' : '<!doctype html><title>Welcome</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    notFound = `http://127.0.0.1:${port}/missing`;
    page = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('exit 3, as when no API answers, in one line saying what answered', async () => {
    const directories = ['GET', '/organization/v3/directories'];
    for (const baseUrl of [notFound, page]) {
      for (const [name, args] of [
        ['call', ['--base-url', baseUrl, ...directories]],
        ['app', ['policy', '--base-url', baseUrl]],
      ] as const) {
        const run = await cli(name, [...args]);
        expect(run).toMatchObject({ code: 3, stdout: '' });
        expect(run.stderr).toMatch(
          new RegExp(
            `^${baseUrl} \\(--base-url\\) did not answer as this API: GET /public/v3/\\S+ answered .+\n$`,
          ),
        );
      }
    }
    expect(succeeded(await cli('call', ['--help']))).toContain(
      '3 no API answers (nothing there, or not this API)',
    );
  }, 60_000);
});

describe('admin audit with nothing to show', () => {
  it('says which filters matched nothing, or which range was empty', async () => {
    const filtered = await cli('admin', ['audit', '--user', 'nobody-at-all', '--outcome', 'refused']);
    expect(filtered).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '(no audit records match those filters: --user nobody-at-all --outcome refused, in the last 24 hours)\n',
    });
    const empty = await cli('admin', ['audit', '--since', '2001-01-01', '--until', '2001-01-02']);
    expect(empty).toEqual({
      code: 0,
      stdout: '',
      stderr: '(no audit records from 2001-01-01T00:00:00.000Z to 2001-01-02T00:00:00.000Z)\n',
    });
  }, 60_000);
});

describe('npm start on a port already in use', () => {
  /** `npm start -- --port <port> --data-dir <dir>` to its end. */
  function start(port: number, dir: string): Promise<CliRun> {
    return new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'infra/local/start.ts', '--port', String(port), '--data-dir', dir],
        {
          cwd: projectRoot,
          env: { ...process.env, NODE_NO_WARNINGS: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    });
  }

  it('names the port and how to pick another, and leaves no data directory behind', async () => {
    const taken = createNetServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const fresh = join(scratch, 'never-made');
      const failed = await start(port, fresh);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        `Port ${port} on 127.0.0.1 is in use (another \`npm start\`?): pick another with --port <n> or PORT=<n>`,
      );
      expect(existsSync(fresh)).toBe(false);

      // A data directory that was there before stays as it was.
      const existing = join(scratch, 'existing');
      await mkdir(existing);
      await writeFile(join(existing, 'keep.txt'), 'mine');
      expect((await start(port, existing)).code).toBe(1);
      expect(await readdir(existing)).toEqual(['keep.txt']);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 120_000);
});

describe.skipIf(testsRunAssembly)("npm start's terminal", () => {
  it('shows one readable line per push attempt, not a JSON record', async () => {
    const link = /npm run authenticator -- (link .+)/.exec(
      succeeded(await cli('app', ['setup', '--user', 'pushed'])),
    )?.[1] as string;
    succeeded(await cli('authenticator', [...link.split(' '), '--state', join(scratch, 'pushed.json')]));
    const asked = succeeded(await cli('app', ['ask', '--user', 'pushed']));
    const authRequest = /auth request (\S+) /.exec(asked)?.[1] as string;
    const line = await until(
      () =>
        terminalOne.split('\n').find((each) => each.includes('Push attempt') && each.includes(authRequest)),
      30_000,
      () => `no push attempt for ${authRequest} in terminal 1:\n${terminalOne}`,
    );
    expect(line).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d Push attempt 1 \\(prompt\\): \\w+ in \\d+ ms; authRequestId ${authRequest}`,
      ),
    );
    expect(terminalOne).not.toMatch(/^\{.*"message":"(Push|Webhook) attempt"/m);
  }, 60_000);
});
