import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '#shared/audit/audit-record';
import type { ApiClient } from '#shared/client/api-client';
import {
  type CliRun,
  demoOrganization,
  freePort,
  runBuiltCli,
  type ServiceProcess,
  startServiceProcess,
} from '#test/support/service-process';

let scratch: string;
let dataDir: string;
let running: ServiceProcess;
let organization: ApiClient;
const started = new Date(Date.now() - 60_000).toISOString();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mfa-audit-cli-'));
  dataDir = join(scratch, 'data');
  running = await startServiceProcess([], { PORT: String(await freePort()), DATA_DIR: dataDir });
  organization = (await demoOrganization(running)).client;
}, 60_000);
afterAll(async () => {
  await running?.stop('SIGINT');
  await rm(scratch, { recursive: true, force: true });
});

function admin(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runBuiltCli('admin', args, { PORT: undefined, BASE_URL: undefined, DATA_DIR: dataDir, ...env });
}

/** The JSON lines of a successful `admin audit`. */
function lines(run: CliRun): AuditRecord[] {
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);
}

describe('npm run admin -- audit', () => {
  it('prints the records of what the walkthrough did as JSON lines, filtered as asked', async () => {
    const directory = await organization.call<{ id: string }>('POST', '/organization/v3/directories', {
      body: { name: `Audit ${crypto.randomUUID()}` },
    });
    const directoryId = directory.body?.id as string;
    const link = await organization.call<{ code: string }>('POST', '/directory/v3/devices', {
      subject: `dir:${directoryId}`,
      body: { identifier: 'alice' },
    });
    const refused = await organization
      .call('POST', '/directory/v3/devices', {
        subject: `dir:${crypto.randomUUID()}`,
        body: { identifier: 'alice' },
      })
      .catch((error: unknown) => error as { status: number });
    expect(refused).toMatchObject({ status: 403 });

    const all = lines(await admin(['audit', '--since', started]));
    expect(all.map((record) => record.operation)).toEqual([
      'POST /organization/v3/directories',
      'POST /directory/v3/devices',
      'POST /directory/v3/devices',
    ]);
    expect(all[0]).toMatchObject({
      organization_id: running.organizationId,
      request_id: directory.headers.get('apigw-requestid'),
      source_ip: '127.0.0.1',
      actor_type: 'org',
      target_id: directoryId,
      outcome: 'success',
      status: 201,
    });
    expect(JSON.stringify(all)).not.toContain(link.body?.code as string);

    expect(lines(await admin(['audit', '--since', started, '--outcome', 'refused']))).toEqual([
      expect.objectContaining({
        operation: 'POST /directory/v3/devices',
        status: 403,
        error_code: 'HTTP-403',
      }),
    ]);
    // The refusal came before the body was read: it names no user.
    expect(lines(await admin(['audit', '--since', started, '--user', 'alice']))).toEqual([
      expect.objectContaining({ operation: 'POST /directory/v3/devices', user: 'alice', status: 201 }),
    ]);
    expect(
      lines(await admin(['audit', '--since', started, '--organization', running.organizationId])),
    ).toHaveLength(3);
    expect(lines(await admin(['audit', '--since', started, '--organization', crypto.randomUUID()]))).toEqual(
      [],
    );
    expect(lines(await admin(['audit', '--until', started]))).toEqual([]);
  }, 120_000);

  it('reads a deployed audit table named with --audit-table', async () => {
    const record = JSON.parse(await readFile(join(dataDir, 'runtime.json'), 'utf8')) as {
      dynamoEndpoint: string;
      tableName: string;
    };
    const aws = {
      AWS_ENDPOINT_URL_DYNAMODB: record.dynamoEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_PROFILE: undefined,
    };
    const deployed = ['audit', '--since', started, '--table', record.tableName];
    expect(
      lines(await admin([...deployed, '--audit-table', `${record.tableName}-audit`], aws)).length,
    ).toBeGreaterThan(0);
    const missing = await admin(deployed, aws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--audit-table');
  }, 60_000);

  it('says what is wrong with its options, and its help describes it', async () => {
    const wrong = await admin(['audit', '--outcome', 'maybe']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.split('\n')[0]).toBe('--outcome must be one of success, refused, failed.');
    const date = await admin(['audit', '--since', 'yesterday']);
    expect(date.code).toBe(2);
    expect(date.stderr.split('\n')[0]).toBe('--since must be an ISO 8601 date or date-time.');
    const help = await admin(['--help']);
    expect(help.stdout).toContain('audit [--since <ISO 8601>] [--until <ISO 8601>] [--organization <id>]');
    expect(help.stdout).toContain('--audit-table <name>');
  }, 60_000);
});
