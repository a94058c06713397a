import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliRun,
  freePort,
  runBuiltCli,
  type ServiceProcess,
  startServiceProcess,
} from '#test/support/service-process';
import { testsRunAssembly } from '#test/support/runtime';

let scratch: string;
let dataDir: string;
let running: ServiceProcess;
let port: number;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mfa-clis-'));
  dataDir = join(scratch, 'data');
  port = await freePort();
  // As a user's first terminal: `PORT=<port> npm start`, the data directory given only by DATA_DIR.
  running = await startServiceProcess([], { PORT: String(port), DATA_DIR: dataDir });
});
afterAll(async () => {
  await running?.stop('SIGINT');
  await rm(scratch, { recursive: true, force: true });
});

/** The second terminal: the same data directory, nothing else; not the first terminal's PORT. */
function cli(name: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runBuiltCli(name, args, { PORT: undefined, BASE_URL: undefined, DATA_DIR: dataDir, ...env });
}

function succeeded(run: CliRun): string {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

/** An expected failure: exactly one line on stderr, no stack trace, and its exit code. */
function oneLine(run: CliRun, code: number): string {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.code).toBe(code);
  return run.stderr.trimEnd();
}

/** Bad usage: one line saying what is wrong, then the usage of the command that was misused; exit 2. */
function badUsage(run: CliRun, usage: string): string {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  const [message, blank, ...rest] = run.stderr.trimEnd().split('\n');
  expect(blank).toBe('');
  expect(rest[0]).toBe(`Usage: npm run ${usage}`);
  expect(run.code).toBe(2);
  return message as string;
}

const uuid = () => crypto.randomUUID();

describe('the CLIs beside a runtime started on another port', () => {
  it('call finds the runtime from the record in the data directory alone', async () => {
    // The cloud assembly's API is where its BaseUrl output says: CloudFront's address, here localhost.
    expect(running.baseUrl).toBe(`http://${testsRunAssembly ? 'localhost' : '127.0.0.1'}:${port}`);
    expect(succeeded(await cli('call', ['GET', '/organization/v3/directories']))).toBe('200\n[]\n');
  });

  it('app policy makes the walkthrough answer FAILED/AUTHENTICATION for a failing PIN', async () => {
    const setup = succeeded(await cli('app', ['setup']));
    const link = /npm run authenticator -- (link .+)/.exec(setup)?.[1] as string;
    succeeded(await cli('authenticator', link.split(' ')));

    expect(succeeded(await cli('app', ['policy', '--amount', '1']))).toMatch(/: 1 authentication method\n$/);
    succeeded(await cli('authenticator', ['configure', '--failing', 'pin_code']));
    succeeded(await cli('app', ['ask']));
    const approved = succeeded(await cli('authenticator', ['approve']));
    expect(approved).toContain('FAILED/AUTHENTICATION');
    expect(approved).toContain('Methods verified: pin_code failed');
    expect(succeeded(await cli('app', ['answer']))).toContain('FAILED/AUTHENTICATION');

    const shown = JSON.parse(succeeded(await cli('app', ['policy', '--json']))) as Record<string, unknown>;
    expect(shown).toMatchObject({ type: 'METHOD_AMOUNT', amount: 1, fences: [] });
    expect(succeeded(await cli('app', ['policy', '--clear']))).toMatch(/: none \(any device may answer\)\n$/);
    succeeded(await cli('app', ['ask']));
    expect(succeeded(await cli('authenticator', ['approve']))).toContain('AUTHORIZED/APPROVED');
  }, 120_000);

  it("authenticator shows a user's linked device the new one that wants to join, and confirm links it", async () => {
    const user = `joiner-${uuid()}`;
    const [first, second] = [join(scratch, `${user}-1.json`), join(scratch, `${user}-2.json`)];
    const linkCommand = async () =>
      (
        /npm run authenticator -- (link .+)/.exec(
          succeeded(await cli('app', ['setup', '--user', user])),
        )?.[1] ?? ''
      ).split(' ');
    succeeded(await cli('authenticator', [...(await linkCommand()), '--state', first]));
    expect(
      succeeded(
        await cli('authenticator', [...(await linkCommand()), '--state', second, '--name', 'Second phone']),
      ),
    ).toContain('is waiting for one of your linked devices to confirm it');
    expect(succeeded(await cli('authenticator', ['status', '--state', second]))).toMatch(
      /^Waiting for one of your linked devices to confirm this one, until /,
    );

    expect(succeeded(await cli('authenticator', ['pending', '--state', first]))).toMatch(
      /^A new device wants to join: Second phone \(CLI\), .+, \d{4}-\d\d-\d\dT/m,
    );
    expect(succeeded(await cli('authenticator', ['confirm', '--state', first]))).toMatch(
      /^Approved Second phone /,
    );
    expect(succeeded(await cli('authenticator', ['status', '--state', second]))).toMatch(/^Linked \(device /);
  }, 120_000);

  it('sets the other policies the options describe: factor types and fences', async () => {
    const set = succeeded(
      await cli('app', [
        'policy',
        '--types',
        'knowledge,inherence',
        '--fence',
        '36.12,-115.17,500,Strip',
        '--fence',
        '51.5,-0.12,1000',
      ]),
    );
    expect(set).toContain('one method of each of inherence, knowledge; inside Strip (36.12,-115.17, 500 m)');
    const shown = JSON.parse(succeeded(await cli('app', ['policy', '--json']))) as { fences: unknown[] };
    expect(shown).toMatchObject({ type: 'FACTORS', factors: ['INHERENCE', 'KNOWLEDGE'] });
    expect(shown.fences).toEqual([
      { type: 'GEO_CIRCLE', name: 'Strip', latitude: 36.12, longitude: -115.17, radius: 500 },
      { type: 'GEO_CIRCLE', latitude: 51.5, longitude: -0.12, radius: 1000 },
    ]);
    succeeded(await cli('app', ['policy', '--clear']));
  }, 60_000);

  it('authenticator denies a number-matching request without the code, which only approve needs', async () => {
    const { serviceId } = JSON.parse(await readFile(join(dataDir, 'demo-application.json'), 'utf8')) as {
      serviceId: string;
    };
    const asked = succeeded(
      await cli('call', [
        '--subject',
        `svc:${serviceId}`,
        'POST',
        '/service/v3/auths',
        JSON.stringify({
          username: 'alice',
          number_matching: true,
          denial_reasons: [
            { id: 'NOTME', reason: 'I did not ask for this', fraud: true },
            { id: 'LATER', reason: 'Not now', fraud: false },
          ],
        }),
      ]),
    );
    const created = JSON.parse(asked.slice(asked.indexOf('\n'))) as { auth_request: string };
    expect(succeeded(await cli('authenticator', ['pending']))).toContain(
      'number matching: approve --code <the code the application shows>; deny needs no code',
    );
    expect(
      badUsage(
        await cli('authenticator', ['approve']),
        'authenticator -- approve [<auth_request>] [--code <code>]',
      ),
    ).toBe(
      'Approving this request needs the code the application shows: pass it with --code. If you did not start this sign-in, deny it (no code needed).',
    );
    expect(succeeded(await cli('authenticator', ['deny', '--reason', 'NOTME']))).toContain(
      `Answered ${created.auth_request}: DENIED/FRAUDULENT (denial reason NOTME)`,
    );
    const read = succeeded(
      await cli('call', [
        '--subject',
        `svc:${serviceId}`,
        'GET',
        `/service/v3/auths/${created.auth_request}`,
      ]),
    );
    expect(read.split('\n')[0]).toBe('200');
  }, 60_000);

  it('admin gives a directory an APNs token key, shows what it can push with, and removes it', async () => {
    const created = succeeded(
      await cli('call', ['POST', '/organization/v3/directories', JSON.stringify({ name: `Push ${uuid()}` })]),
    );
    const directory = (JSON.parse(created.slice(created.indexOf('\n'))) as { id: string }).id;
    const p8 = fileURLToPath(new URL('../fixtures/apns/AuthKey_ABC123DEFG.p8', import.meta.url));
    const show = async () =>
      JSON.parse(
        succeeded(await cli('admin', ['directory', 'push', '--directory', directory, '--json'])),
      ) as unknown;
    expect(await show()).toEqual({
      directory_id: directory,
      apns_certificate: 'none',
      apns_token_key: 'none',
      apns_uses: 'nothing: APNs pushes fail',
      fcm: 'none',
    });
    const options = [
      '--p8',
      p8,
      '--key-id',
      'ABC123DEFG',
      '--team-id',
      'DEF123GHIJ',
      '--topic',
      'com.example.app',
    ];
    expect(
      succeeded(await cli('admin', ['directory', 'apns-key', '--directory', directory, ...options])),
    ).toContain(
      'apns_token_key: key ABC123DEFG, team DEF123GHIJ, topic com.example.app\napns_uses: token key\n',
    );
    expect(await show()).toMatchObject({ apns_uses: 'token key' });
    const wrong = oneLine(
      await cli('admin', [
        'directory',
        'apns-key',
        '--directory',
        directory,
        ...options.slice(0, 3),
        'abc',
        ...options.slice(4),
      ]),
      1,
    );
    expect(wrong).toContain('the key id must be 10 upper-case letters or digits');
    expect(
      succeeded(await cli('admin', ['directory', 'apns-key', '--directory', directory, '--remove'])),
    ).toContain('apns_token_key: none');
    expect(
      badUsage(
        await cli('admin', ['directory', 'apns-key', '--directory', directory]),
        'admin -- directory apns-key --directory <id> (--p8 <file> --key-id <id> --team-id <id> --topic <bundle id> | --remove)',
      ),
    ).toBe('directory apns-key needs --p8, --key-id, --team-id and --topic, or --remove.');
  }, 60_000);

  it('prints an unsigned 404 as its status and body, not as a verification failure', async () => {
    const line = oneLine(await cli('call', ['GET', '/no/such/route']), 1);
    expect(line).toBe(
      '404 Not Found (unsigned): {"error_code":"HTTP-404","error_detail":"No route for GET \\"/no/such/route\\""}',
    );
  });

  it('says there is no such auth request for a wrong id, instead of waiting on it', async () => {
    const id = uuid();
    expect(oneLine(await cli('app', ['answer', id, '--wait', '5']), 1)).toBe(
      `No auth request ${id}: this application did not ask it.`,
    );
    expect(oneLine(await cli('app', ['cancel', id]), 1)).toBe(`No pending auth request ${id}.`);
    expect(oneLine(await cli('authenticator', ['approve', id]), 1)).toBe(
      `No pending auth request ${id} for this device.`,
    );
  }, 60_000);

  it('answers bad arguments with one line and the usage of that command', async () => {
    expect(badUsage(await cli('call', ['--bogus']), 'call -- [options] <METHOD> <PATH> [JSON body]')).toMatch(
      /^Unknown option '--bogus'/,
    );
    expect(badUsage(await cli('call', ['GET']), 'call -- [options] <METHOD> <PATH> [JSON body]')).toBe(
      'Give a METHOD and a PATH, and optionally a JSON body.',
    );
    expect(
      badUsage(
        await cli('app', ['policy', '--amount', '1', '--types', 'knowledge']),
        'app -- policy [--amount <n> | --types <list>] [--fence <lat,lon,radius[,name]> ...] [--clear]',
      ),
    ).toMatch(/^Give --amount or --types, not both/);
    expect(
      badUsage(
        await cli('app', ['answer', 'not-an-id']),
        'app -- answer [<auth_request>] [--wait <seconds>]',
      ),
    ).toBe('"not-an-id" is not an auth request id (a UUID).');
    expect(
      badUsage(
        await cli('authenticator', ['configure', '--rooted', 'maybe']),
        'authenticator -- configure [--reset] [options] [--json]',
      ),
    ).toBe('--rooted must be yes or no.');
    expect(
      badUsage(
        await cli('admin', ['org', 'create']),
        'admin -- org create --name <name> [--public-key <file>] [--key-bits <n>] [--out <file>]',
      ),
    ).toBe('org create needs --name.');
    expect(
      badUsage(
        await cli('admin', ['org', 'fly']),
        'admin -- <command> [options]; commands: preflight, org create, org list, org key add, service v1-credentials, service claim-look-alikes, console invite, directory settings, device confirm, directory push, directory apns-key, locks list, locks clear, webhooks dead-letters, webhooks redrive, push dead-letters, push redrive, api-key list, api-key add, api-key rotate, api-key revoke, audit',
      ),
    ).toBe('Unknown command "org fly".');
  }, 60_000);

  it("keeps the AWS SDK's Node version notice out of admin's output, against a deployed table too", async () => {
    const record = JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8')) as {
      dynamoEndpoint: string;
      tableName: string;
    };
    const unsilenced = {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: undefined,
      NODE_NO_WARNINGS: undefined,
    };
    // --table as against AWS, the runtime's own store standing in for DynamoDB.
    const deployed = await cli('admin', ['org', 'list', '--table', record.tableName, '--json'], {
      ...unsilenced,
      AWS_ENDPOINT_URL_DYNAMODB: record.dynamoEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_PROFILE: undefined,
    });
    expect(JSON.parse(succeeded(deployed))).toEqual([expect.objectContaining({ name: 'Demo Organization' })]);
    expect(succeeded(await cli('admin', ['webhooks', 'dead-letters'], unsilenced))).toBe('(none)\n');
  });
});

describe('the CLIs with no runtime to talk to', () => {
  it('say in one line where they looked, with exit code 3', async () => {
    const closed = await freePort();
    const key = join(dataDir, 'demo-organization.key.pem');
    const signed = ['--issuer', `org:${uuid()}`, '--key', key, 'GET', '/organization/v3/directories'];
    expect(oneLine(await cli('call', signed, { PORT: String(closed) }), 3)).toBe(
      `No API answers at http://127.0.0.1:${closed} (PORT=${closed}) — start it with \`npm start\``,
    );

    // A record whose process lives but whose port answers nothing (here: this test's own pid).
    const hung = join(scratch, 'hung');
    await mkdir(hung);
    await writeFile(
      join(hung, 'runtime.json'),
      JSON.stringify({ pid: process.pid, baseUrl: `http://127.0.0.1:${closed}` }),
    );
    expect(oneLine(await cli('call', signed, { DATA_DIR: hung }), 3)).toBe(
      `No API answers at http://127.0.0.1:${closed} (the runtime recorded in ${join(hung, 'runtime.json')}) — start it with \`npm start\``,
    );

    expect(oneLine(await cli('app', ['policy'], { PORT: String(closed) }), 3)).toMatch(
      `No API answers at http://127.0.0.1:${closed} (PORT=${closed})`,
    );
    expect(oneLine(await cli('authenticator', ['pending'], { PORT: String(closed) }), 3)).toMatch(
      `No API answers at http://127.0.0.1:${closed} (PORT=${closed})`,
    );
  }, 60_000);

  it('admin preflight says in one line that no AWS credentials were found, and its help lists it', async () => {
    const noCredentials = {
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      AWS_WEB_IDENTITY_TOKEN_FILE: undefined,
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: undefined,
      AWS_CONTAINER_CREDENTIALS_FULL_URI: undefined,
      AWS_CONFIG_FILE: join(scratch, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    expect(oneLine(await cli('admin', ['preflight', '--region', 'eu-west-1'], noCredentials), 3)).toBe(
      'AWS cannot be reached: Could not load credentials from any providers',
    );
    const help = succeeded(await cli('admin', ['--help']));
    expect(help).toContain('\n  preflight --region <region> [--edge waf|none] [--qualifier <qualifier>]');
    expect(help).toContain('preflight exits 1 when a check needs a fix.');
  }, 60_000);

  it('refuse before the first start without creating its data directory', async () => {
    const never = join(scratch, 'never-started');
    for (const [name, args] of [
      ['call', ['GET', '/organization/v3/directories']],
      ['app', ['setup']],
      ['admin', ['org', 'list']],
      ['admin', ['api-key', 'list']],
      ['admin', ['webhooks', 'dead-letters']],
      ['admin', ['audit']],
    ] as const) {
      const line = oneLine(await cli(name, [...args], { DATA_DIR: never }), 3);
      expect(line).toContain(never);
      expect(line).toContain('`npm start`');
    }
    expect(oneLine(await cli('authenticator', ['pending'], { DATA_DIR: never }), 2)).toBe(
      `No authenticator state at ${join(never, 'authenticator.json')}: link a device first`,
    );
    expect(existsSync(never)).toBe(false);
  }, 60_000);
});
