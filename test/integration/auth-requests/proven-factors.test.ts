import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '#shared/audit/audit-record';
import type { ApiClient } from '#shared/client/api-client';
import type { ApiRequestError } from '#shared/client/errors';
import type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { amountPolicy, inherencePolicy } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';
import { SoftwareAuthenticator } from '#test/support/webauthn-authenticator';

/**
 * Factors proven to the service (docs/protocol.md#proven-factors): with the directory's setting on, a request whose
 * policy asks for inherence is approved only by a device whose answer carries a verified passkey assertion, so a
 * device that only declares a biometric check (one an application's stolen key enrolled, say) cannot approve it.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let origin: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
});
afterAll(async () => {
  await runtime?.stop();
});

async function setProvenFactors(value: 'on' | 'off') {
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  return updateDirectorySettings(scene.directoryId, { provenFactors: value });
}

async function device(identifier: string, withPasskey: boolean) {
  const client: ApiClient = deviceClient(origin, await scene.linkDevice(identifier));
  const authenticator = new SoftwareAuthenticator(origin);
  if (withPasskey) {
    const options = (await client.call('POST', '/device/v3/passkey/options')).body;
    const registered = await client.call('PUT', '/device/v3/passkey', {
      body: { registration: authenticator.register(options as never) },
    });
    expect(registered.status).toBe(204);
  }
  return { client, authenticator };
}

async function pending(client: ApiClient): Promise<PendingAuthRequestView> {
  const [request] = (await client.call<PendingAuthRequestView[]>('GET', '/device/v3/auths')).body ?? [];
  if (!request) throw new Error('Nothing pending');
  return request;
}

const sealed = { auth_jwe: `h.k.i.${'c'.repeat(40)}.t` };

describe('factors proven to the service', () => {
  it('is off by default: a device without a passkey answers an inherence request as before', async () => {
    const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
    expect((await updateDirectorySettings(scene.directoryId, {})).proven_factors).toBe('off');
    const { client } = await device('prf-off', false);
    const { auth_request } = await scene.ask({ username: 'prf-off', policy: inherencePolicy });
    expect((await pending(client)).passkey_required).toBeUndefined();
    expect((await client.call('POST', `/device/v3/auths/${auth_request}`, { body: sealed })).status).toBe(
      204,
    );
  });

  it('refuses a sealed answer to an inherence request from a device without a passkey, and the request stays pending', async () => {
    expect((await setProvenFactors('on')).proven_factors).toBe('on');
    const { client } = await device('prf-declared', false);
    const { auth_request } = await scene.ask({ username: 'prf-declared', policy: inherencePolicy });
    expect((await pending(client)).passkey_required).toBe(true);
    const error: ApiRequestError = await refusal(
      client.call('POST', `/device/v3/auths/${auth_request}`, { body: sealed }),
    );
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 403, code: 'HTTP-403' });
    expect(String(error.errorDetail)).toContain('only proven with a passkey');
    expect((await scene.read(auth_request)).status).toBe(204);
  });

  it("is an operator's setting that the organization sees in its audit trail", async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    await setProvenFactors('on');
    const { body } = await scene.organization.client.call<{ records: AuditRecord[] }>(
      'POST',
      '/organization/v3/audit/list',
      { body: { since, until: new Date(Date.now() + 60_000).toISOString() } },
    );
    expect(body?.records.filter((record) => record.actor_type === 'operator')).toContainEqual(
      expect.objectContaining({
        operation: 'admin directory settings --proven-factors on',
        directory_id: scene.directoryId,
        outcome: 'success',
      }),
    );
  });

  it("takes the answer of a device whose passkey's assertion verifies", async () => {
    await setProvenFactors('on');
    const { client, authenticator } = await device('prf-passkey', true);
    const { auth_request } = await scene.ask({ username: 'prf-passkey', policy: inherencePolicy });
    const request = await pending(client);
    expect(request.passkey_required).toBe(true);
    if (!request.webauthn) throw new Error('No assertion asked for');
    const answered = await client.call('POST', `/device/v3/auths/${auth_request}`, {
      body: { ...sealed, webauthn: authenticator.assert(request.webauthn) },
    });
    expect(answered.status).toBe(204);
    expect((await scene.read(auth_request)).status).toBe(200);
  });

  it('leaves a request whose policy asks for no inherence to any linked device', async () => {
    await setProvenFactors('on');
    const { client } = await device('prf-amount', false);
    const { auth_request } = await scene.ask({ username: 'prf-amount', policy: amountPolicy(1) });
    expect((await pending(client)).passkey_required).toBeUndefined();
    expect((await client.call('POST', `/device/v3/auths/${auth_request}`, { body: sealed })).status).toBe(
      204,
    );
  });
});
