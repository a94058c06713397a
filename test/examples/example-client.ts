import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Authenticator } from '#shared/authenticator/authenticator';
import { type Answer, startTamperingProxy } from '#test/examples/tampering-proxy';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { projectRoot } from '#test/support/service-process';

/** How to run one of the example clients: its interpreter and script, from the project root. */
export type ExampleCommand = readonly [string, ...string[]];

interface ExampleRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running client: the first line it prints, and how it ended. */
interface RunningExample {
  readonly firstLine: Promise<string>;
  readonly ended: Promise<ExampleRun>;
}

const running = new Set<ChildProcess>();

function start(command: ExampleCommand, args: readonly string[]): RunningExample {
  const [program, ...programArgs] = command;
  const child = spawn(program, [...programArgs, ...args], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  let onLine: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => {
    onLine = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const newline = stdout.indexOf('\n');
    if (newline !== -1) onLine(stdout.slice(0, newline));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ended = new Promise<ExampleRun>((resolve) => {
    child.once('close', (code) => {
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
  // A client that dies before its first line must fail the test with what it said, not leave it waiting.
  void ended.then((run) => onLine(`(exited ${run.code}) ${run.stderr}`));
  return { firstLine, ended };
}

/** The answer with its body altered, as a man in the middle could. */
function alteredBody(answer: Answer): Answer {
  const body = Buffer.from(answer.body);
  body[0] = (body[0] ?? 0) ^ 1;
  return { ...answer, body };
}

/** The answer with its body altered and its JWT's body hash made to match, the signature left as it was. */
function forgedJwt(answer: Answer): Answer {
  const altered = alteredBody(answer);
  const [header, payload, signature] = (answer.headers['x-iov-jwt'] ?? '').split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as {
    response: { hash: string };
  };
  claims.response.hash = createHash('sha256').update(altered.body).digest('hex');
  const jwt = [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
  return { ...altered, headers: { ...answer.headers, 'x-iov-jwt': jwt, 'x-api-jwt': jwt } };
}

/**
 * The tests both example clients pass, run as a user runs them (a child process, keys in PEM files) against the local
 * runtime: list directories as an organization, then ask a linked user and print the device's decrypted answer.
 */
export function exampleClientSuite(command: ExampleCommand): void {
  let runtime: TestRuntime;
  let scene: AuthScene;
  let device: Authenticator;
  let keyDir: string;
  let organizationKey: string;
  let serviceKey: string;

  beforeAll(async () => {
    runtime = await startTestRuntime();
    scene = await newAuthScene(runtime);
    device = await scene.linkDevice('alice');
    keyDir = await mkdtemp(join(tmpdir(), 'mfa-example-'));
    organizationKey = join(keyDir, 'organization.pem');
    serviceKey = join(keyDir, 'service.pem');
    await writeFile(organizationKey, scene.organization.privateKeyPem, { mode: 0o600 });
    await writeFile(serviceKey, scene.serviceKey.privatePem, { mode: 0o600 });
  });
  afterAll(async () => {
    for (const child of running) child.kill();
    await runtime?.stop();
    if (keyDir) await rm(keyDir, { recursive: true, force: true });
  });

  /** Runs `auth` with `args`, answers the request it made as the user chose, and returns what it printed. */
  async function askAndAnswer(args: readonly string[], approve: boolean) {
    const client = start(command, [runtime.baseUrl, ...args]);
    const asked = /^auth request (\S+): waiting for alice to answer$/.exec(await client.firstLine)?.[1];
    expect(asked).toBeDefined();
    const [pending] = await device.pending();
    expect(pending).toMatchObject({ auth_request: asked, context: 'Sign in from the example' });
    if (!pending) throw new Error('nothing pending');
    device = new Authenticator((await device.answer(pending, { approve })).state);
    const run = await client.ended;
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return { asked, answer: JSON.parse(run.stdout.slice(run.stdout.indexOf('\n') + 1)) as unknown };
  }

  /** Lists directories `times` times through a proxy that tampers with every signed answer; the last run's output. */
  async function listThroughProxy(tamper: (answer: Answer) => Answer, times = 1): Promise<ExampleRun> {
    const proxy = await startTamperingProxy(runtime.baseUrl, tamper);
    try {
      const args = [proxy.baseUrl, scene.organization.issuer, organizationKey, 'directories'];
      let run = await start(command, args).ended;
      for (let time = 1; time < times; time++) run = await start(command, args).ended;
      return run;
    } finally {
      await proxy.close();
    }
  }

  it("lists the organization's directories, signed with the organization's key", async () => {
    const client = start(command, [
      runtime.baseUrl,
      scene.organization.issuer,
      organizationKey,
      'directories',
      '--sign',
      'RS256',
    ]);
    const run = await client.ended;
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({ id: scene.directoryId, service_ids: [scene.serviceId] }),
    ]);
  });

  it("asks a linked user as the service and prints the device's approval, decrypted", async () => {
    const { asked, answer } = await askAndAnswer(
      [`svc:${scene.serviceId}`, serviceKey, 'auth', 'alice', '--context', 'Sign in from the example'],
      true,
    );
    expect(answer).toMatchObject({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      denial_reason: null,
      auth_request: asked,
      device_id: device.state.deviceId,
    });
  });

  it('asks as the organization acting for its service, and prints a denial sealed to its key', async () => {
    const { asked, answer } = await askAndAnswer(
      [
        scene.organization.issuer,
        organizationKey,
        'auth',
        'alice',
        '--subject',
        `svc:${scene.serviceId}`,
        '--context',
        'Sign in from the example',
        '--sign',
        'RS256',
        '--encrypt',
        'RSA-OAEP',
      ],
      false,
    );
    expect(answer).toMatchObject({
      type: 'DENIED',
      reason: 'DISAPPROVED',
      auth_request: asked,
      device_id: device.state.deviceId,
    });
  });

  it('says in one line why the service refused, with its error code', async () => {
    const run = await start(command, [
      runtime.baseUrl,
      `svc:${scene.serviceId}`,
      serviceKey,
      'auth',
      'nobody-here',
      '--context',
      'Sign in from the example',
    ]).ended;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^refused: 404 HTTP-404 \S.*\n$/);
  });

  it('refuses an answer whose body was altered on the way', async () => {
    const run = await listThroughProxy(alteredBody);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('the body hash does not match');
  });

  it('refuses an answer whose JWT was altered to match, as its signature no longer verifies', async () => {
    const run = await listThroughProxy(forgedJwt);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('signature does not verify');
  });

  it("refuses the answer to another request, replayed with the API's own signature", async () => {
    let first: Answer | undefined;
    const run = await listThroughProxy((answer) => (first ??= answer), 2);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain("jti is not our request's");
  });
}
