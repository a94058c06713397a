import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import type { AuditRecord } from '#shared/audit/audit-record';
import { ApiClient } from '#shared/client/api-client';
import { type AuthScene, newAuthScene, replayableCreate } from '#test/support/auth-scene';
import { denialReasons } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let device: Authenticator;
const started = new Date(Date.now() - 60_000);
/** Everything a test saw that must never reach the audit trail. */
const secrets: string[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  device = await scene.linkDevice('alice');
  secrets.push(scene.sdkKey, scene.serviceKey.privatePem);
});
afterAll(async () => {
  await runtime?.stop();
});

const asService = () => ({ subject: `svc:${scene.serviceId}` });
const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

/** The organization's records over the endpoint, every page. */
async function trail(filters: Record<string, unknown> = {}, client?: ApiClient): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  let cursor: string | undefined;
  do {
    const { status, body } = await (client ?? scene.organization.client).call<{
      records: AuditRecord[];
      cursor?: string;
    }>('POST', '/organization/v3/audit/list', {
      body: {
        since: started.toISOString(),
        until: new Date(Date.now() + 60_000).toISOString(),
        ...filters,
        ...(cursor ? { cursor } : {}),
      },
    });
    expect(status).toBe(200);
    records.push(...(body?.records ?? []));
    cursor = body?.cursor;
  } while (cursor);
  return records;
}

async function pendingOf(authenticator: Authenticator) {
  const [pending] = await authenticator.pending();
  return pending as NonNullable<typeof pending>;
}

describe('the audit trail records', () => {
  it("an auth request's creation and answer, with who, what, the request id and the source address", async () => {
    const created = await scene.service.call<{ auth_request: string }>('POST', '/service/v3/auths', {
      ...asService(),
      body: { username: 'alice', context: 'Sign in from Firefox' },
    });
    const authRequest = created.body?.auth_request as string;
    expect((await scene.read(authRequest)).status).toBe(204);
    await device.answer(await pendingOf(device), { approve: true });
    const read = await scene.read(authRequest);
    expect(read.status).toBe(200);
    secrets.push(read.body?.auth_jwe as string, JSON.stringify(await scene.open(read.body as never)));

    const records = (await trail()).filter((record) => record.auth_request_id === authRequest);
    expect(records).toEqual([
      {
        organization_id: scene.organization.id,
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        request_id: created.headers.get('apigw-requestid'),
        source_ip: '127.0.0.1',
        actor_type: 'svc',
        actor_id: scene.serviceId,
        kid: scene.serviceKey.kid,
        operation: 'POST /service/v3/auths',
        directory_id: scene.directoryId,
        service_id: scene.serviceId,
        user: 'alice',
        auth_request_id: authRequest,
        outcome: 'success',
        status: 201,
        auth_event: 'created',
      },
      expect.objectContaining({
        actor_type: 'dev',
        actor_id: device.state.deviceId,
        operation: 'POST /device/v3/auths/{auth_request}',
        directory_id: scene.directoryId,
        service_id: scene.serviceId,
        user: 'alice',
        device_id: device.state.deviceId,
        outcome: 'success',
        status: 204,
        auth_event: 'answered',
      }),
    ]);
  });

  it('a cancel, a denial marked fraud, and a request ended by wrong codes', async () => {
    const cancelled = await scene.ask({ username: 'alice' });
    await scene.service.call('DELETE', `/service/v3/auths/${cancelled.auth_request}`, asService());
    const denied = await scene.ask({ username: 'alice', denial_reasons: denialReasons });
    await device.answer(await pendingOf(device), { approve: false, denialReason: 'NOTME' });
    const matched = await scene.ask({ username: 'alice', number_matching: true });
    const code = (matched as { number_match_code?: string }).number_match_code as string;
    secrets.push(code);
    const wrong = String((Number(code) + 1) % 1000).padStart(3, '0');
    const pending = await pendingOf(device);
    for (let attempt = 0; attempt < 3; attempt++)
      await refusal(device.answer(pending, { approve: true, numberMatchCode: wrong }));

    const events = (await trail())
      .filter((record) =>
        [cancelled.auth_request, denied.auth_request, matched.auth_request].includes(
          record.auth_request_id as string,
        ),
      )
      .map((record) => [record.auth_request_id, record.auth_event, record.error_code]);
    expect(events).toEqual([
      [cancelled.auth_request, 'created', undefined],
      [cancelled.auth_request, 'cancelled', undefined],
      [denied.auth_request, 'created', undefined],
      [denied.auth_request, 'denied-as-fraud', undefined],
      [matched.auth_request, 'created', undefined],
      [matched.auth_request, undefined, 'SVC-009'],
      [matched.auth_request, undefined, 'SVC-009'],
      [matched.auth_request, 'ended-by-wrong-codes', 'SVC-008'],
    ]);
  });

  it('changes of the directory tree, a device link, and a TOTP secret, with nothing secret in them', async () => {
    const patch = await scene.organization.client.call('PATCH', '/organization/v3/directories', {
      body: { directory_id: scene.directoryId, active: true },
    });
    const started = await scene.organization.client.call<{ code: string; device_id: string }>(
      'POST',
      '/directory/v3/devices',
      { ...asDirectory(), body: { identifier: 'bob' } },
    );
    secrets.push(started.body?.code as string);
    const totp = await scene.organization.client.call<{ secret: string }>('POST', '/directory/v3/totp', {
      ...asDirectory(),
      body: { identifier: 'bob' },
    });
    secrets.push(totp.body?.secret as string);
    const bob = await scene.linkDevice('carol');

    const records = await trail();
    expect(records.find((record) => record.request_id === patch.headers.get('apigw-requestid'))).toEqual(
      expect.objectContaining({
        actor_type: 'org',
        actor_id: scene.organization.id,
        operation: 'PATCH /organization/v3/directories',
        directory_id: scene.directoryId,
        outcome: 'success',
        status: 204,
      }),
    );
    expect(records.find((record) => record.request_id === started.headers.get('apigw-requestid'))).toEqual(
      expect.objectContaining({
        actor_type: 'org',
        subject: `dir:${scene.directoryId}`,
        operation: 'POST /directory/v3/devices',
        user: 'bob',
        device_id: started.body?.device_id,
      }),
    );
    expect(records.find((record) => record.request_id === totp.headers.get('apigw-requestid'))).toEqual(
      expect.objectContaining({ operation: 'POST /directory/v3/totp', user: 'bob', status: 201 }),
    );
    expect(
      records.find((record) => record.operation === 'POST /device/v3/link' && record.user === 'carol'),
    ).toEqual(
      expect.objectContaining({
        actor_type: 'dev',
        actor_id: bob.state.deviceId,
        kid: expect.stringMatching(/^([\da-f]{2}:){15}[\da-f]{2}$/),
        directory_id: scene.directoryId,
        device_id: bob.state.deviceId,
        request_id: expect.any(String),
        source_ip: '127.0.0.1',
        outcome: 'success',
        status: 201,
      }),
    );
    const text = JSON.stringify(records);
    // A 3-digit number-matching code can turn up inside an id or a time by chance: a short secret is looked for as a
    // value of its own, not inside a longer run of letters and digits; a long one anywhere.
    const standalone = (secret: string) => new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`);
    const leaked = secrets.filter((secret) =>
      /^\d{1,7}$/.test(secret) ? standalone(secret).test(text) : text.includes(secret),
    );
    expect(leaked).toEqual([]);
  });

  it('refusals of verified callers, but neither their reads nor requests that never verified', async () => {
    const before = (await trail()).length;
    const reads = await scene.organization.client.call('GET', '/organization/v3/directories');
    expect(reads.status).toBe(200);
    const stranger = await newAuthScene(runtime);
    const refused = await refusal(
      stranger.organization.client.call('PATCH', '/organization/v3/directories', {
        body: { directory_id: scene.directoryId, active: false },
      }),
    );
    expect(refused.status).toBe(403);
    const garbage = await fetch(`${runtime.baseUrl}/organization/v3/directories`, {
      headers: { authorization: 'IOV-JWT not.a.jwt' },
    });
    expect(garbage.status).toBe(401);
    const impostor = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: scene.organization.issuer,
      privateKeyPem: stranger.serviceKey.privatePem,
    });
    expect((await refusal(impostor.call('GET', '/organization/v3/directories'))).status).toBe(401);

    expect((await trail()).length).toBe(before);
    const theirs = await trail({ outcome: 'refused' }, stranger.organization.client);
    expect(theirs).toEqual([
      expect.objectContaining({
        organization_id: stranger.organization.id,
        actor_id: stranger.organization.id,
        directory_id: scene.directoryId,
        outcome: 'refused',
        status: 403,
        operation: 'PATCH /organization/v3/directories',
        error_code: 'HTTP-403',
      }),
    ]);
  });

  it('a replayed request as a refusal, AUTH-006, which the use case it reached does not change', async () => {
    const { authRequest, replay: sendAgain } = await replayableCreate(scene, 'alice');
    const replay = await sendAgain();
    expect(replay.status).toBe(401);
    await scene.service.call('DELETE', `/service/v3/auths/${authRequest}`, asService());

    const records = await trail({ outcome: 'refused' });
    expect(records.filter((record) => record.request_id === replay.headers.get('apigw-requestid'))).toEqual([
      expect.objectContaining({
        actor_type: 'svc',
        actor_id: scene.serviceId,
        kid: scene.serviceKey.kid,
        operation: 'POST /service/v3/auths',
        service_id: scene.serviceId,
        user: 'alice',
        outcome: 'refused',
        status: 401,
        error_code: 'AUTH-006',
      }),
    ]);
  });

  it('a record it could not write in the log, whole, and the caller still gets the answer', async () => {
    const { logger } = await import('#shared/log');
    const logged = vi.spyOn(logger, 'error');
    vi.stubEnv('AUDIT_TABLE_NAME', 'no-such-audit-table');
    try {
      const patch = await scene.organization.client.call('PATCH', '/organization/v3/directories', {
        body: { directory_id: scene.directoryId, active: true },
      });
      expect(patch.status).toBe(204);
      const requestId = patch.headers.get('apigw-requestid');
      expect(logged).toHaveBeenCalledWith(
        'Audit record not written; it is in this log line',
        expect.objectContaining({
          auditRecord: expect.objectContaining({
            request_id: requestId,
            operation: 'PATCH /organization/v3/directories',
            directory_id: scene.directoryId,
            outcome: 'success',
          }),
        }),
      );
      vi.unstubAllEnvs();
      expect((await trail()).filter((record) => record.request_id === requestId)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      logged.mockRestore();
    }
  });
});
