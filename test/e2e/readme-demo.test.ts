import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, type ServiceProcess, startServiceProcess } from '#test/support/service-process';

let dataDir: string;
let running: ServiceProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-demo-'));
  running = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
});
afterAll(async () => {
  await running?.stop('SIGINT');
  await rm(dataDir, { recursive: true, force: true });
});

/** The second terminal of the README: the same environment for every command. */
async function terminal(name: 'app' | 'authenticator' | 'admin', ...args: string[]): Promise<CliRun> {
  return runCli(name, args, { DATA_DIR: dataDir, BASE_URL: running.baseUrl });
}

function succeeded(run: CliRun): string {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

describe("the README's two-terminal demo", () => {
  it('shows a real approval: the application prints the decrypted answer', async () => {
    const setup = succeeded(await terminal('app', 'setup'));
    const link = /npm run authenticator -- (link .+)/.exec(setup)?.[1];
    expect(link).toBeDefined();
    expect(succeeded(await terminal('authenticator', ...(link as string).split(' ')))).toMatch(
      /^Linked device/,
    );
    expect((await stat(join(dataDir, 'authenticator.json'))).mode & 0o777).toBe(0o600);

    const asked = succeeded(
      await terminal('app', 'ask', '--context', 'Sign in from Firefox', '--denial-reasons'),
    );
    const authRequest = /auth request (\S+) /.exec(asked)?.[1] as string;
    const pending = succeeded(await terminal('authenticator', 'pending'));
    expect(pending).toContain(authRequest);
    expect(pending).toContain('context: Sign in from Firefox');
    expect(pending).toContain('deny --reason NOTME: I did not ask for this (fraud)');
    expect(succeeded(await terminal('authenticator', 'approve'))).toContain('AUTHORIZED/APPROVED');
    const answer = succeeded(await terminal('app', 'answer'));
    expect(answer).toContain(`${authRequest}: AUTHORIZED/APPROVED (authorized)`);
    expect(answer).toContain('Session started for alice.');
    expect(succeeded(await terminal('authenticator', 'sessions'))).toMatch(/^Demo service/);

    succeeded(await terminal('app', 'ask', '--denial-reasons'));
    expect(succeeded(await terminal('authenticator', 'deny', '--reason', 'NOTME'))).toContain(
      'DENIED/FRAUDULENT',
    );
    expect(succeeded(await terminal('app', 'answer'))).toContain('denial reason: NOTME');
  }, 90_000);

  it("gives each answer the README's policy and configure lines promise", async () => {
    /** `npm run app -- ask && npm run authenticator -- approve`, then what the application reads. */
    const askAndApprove = async (): Promise<string> => {
      succeeded(await terminal('app', 'ask'));
      const approved = /Answered \S+: (\S+)/.exec(succeeded(await terminal('authenticator', 'approve')))?.[1];
      expect(succeeded(await terminal('app', 'answer'))).toContain(`: ${approved}`);
      return approved as string;
    };
    expect(succeeded(await terminal('app', 'policy', '--amount', '1'))).toMatch(
      /: 1 authentication method\n$/,
    );
    succeeded(await terminal('authenticator', 'configure', '--failing', 'pin_code'));
    expect(await askAndApprove()).toBe('FAILED/AUTHENTICATION');

    succeeded(await terminal('app', 'policy', '--types', 'inherence'));
    succeeded(await terminal('authenticator', 'configure', '--no-permission', 'fingerprint'));
    expect(await askAndApprove()).toBe('FAILED/PERMISSION');
    succeeded(await terminal('authenticator', 'configure', '--unsupported', 'fingerprint'));
    expect(await askAndApprove()).toBe('FAILED/CONFIGURATION');

    succeeded(await terminal('app', 'policy', '--fence', '36.12,-115.17,500'));
    succeeded(await terminal('authenticator', 'configure', '--location', '40.71,-74.00'));
    expect(await askAndApprove()).toBe('FAILED/POLICY');
    succeeded(await terminal('authenticator', 'configure', '--busy-local', 'yes'));
    expect(await askAndApprove()).toBe('FAILED/BUSY_LOCAL');

    succeeded(await terminal('app', 'policy', '--clear'));
    // The README's way back: each setting the demo changed, one a line, back to a fresh setup's.
    expect(succeeded(await terminal('authenticator', 'configure', '--reset')).split('\n')).toEqual([
      'pin_code verification: fails → passes',
      'fingerprint supported by the device: no → yes',
      'fingerprint OS permission: not granted → granted',
      'location: 40.71,-74 → none',
      'busy with a local request: yes → no',
      '',
    ]);
    expect(await askAndApprove()).toBe('AUTHORIZED/APPROVED');
  }, 240_000);

  it('refuses clearly: bad usage exits 2 with help, a refusal exits 1', async () => {
    const unknown = await terminal('authenticator', 'fly');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "fly"');
    const nothing = await terminal('authenticator', 'approve');
    expect(nothing).toMatchObject({ code: 1, stderr: 'Nothing to answer.\n' });
    const badMethod = await terminal('authenticator', 'configure', '--methods', 'iris');
    expect(badMethod.code).toBe(2);
    expect(badMethod.stderr).toContain('Unknown method "iris"');
  }, 60_000);

  it('lists and re-drives the webhook dead-letter queue through the admin CLI', async () => {
    const listed = JSON.parse(
      succeeded(await terminal('admin', 'webhooks', 'dead-letters', '--data-dir', dataDir, '--json')),
    ) as unknown[];
    expect(listed).toEqual([]);
    expect(
      JSON.parse(succeeded(await terminal('admin', 'webhooks', 'redrive', '--data-dir', dataDir, '--json'))),
    ).toEqual([]);
    const elsewhere = await terminal(
      'admin',
      'webhooks',
      'dead-letters',
      '--data-dir',
      join(dataDir, 'none'),
    );
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toContain('only while the local runtime runs');
  }, 60_000);

  it('issues v1 credentials through the admin CLI', async () => {
    const app = JSON.parse(succeeded(await terminal('app', 'setup', '--json'))) as { serviceId: string };
    const issued = JSON.parse(
      succeeded(await terminal('admin', 'service', 'v1-credentials', '--service', app.serviceId, '--json')),
    ) as { app_key: string; secret: string };
    expect(issued.app_key).toMatch(/^\d{10}$/);
    expect(issued.secret).toMatch(/^[a-z0-9]{32}$/);
    const missing = await terminal('admin', 'service', 'v1-credentials', '--service', crypto.randomUUID());
    expect(missing.code).toBe(1);
  }, 60_000);
});
