import type { KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { buildV1Credentials } from '#shared/protocol/legacy-credentials';
import { decryptV1AuthPackage } from '#shared/protocol/legacy-packages';
import { importPublicKey } from '#shared/protocol/pem';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;
let credentials: { app_key: string; secret: string };
let apiPublicKey: KeyObject;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  alice = await scene.linkDevice('alice');
  const { issueV1Credentials } = await import('#shared/use-cases/v1-poll');
  credentials = await issueV1Credentials(scene.serviceId);
  apiPublicKey = importPublicKey(await (await fetch(`${runtime.baseUrl}/public/v3/public-key`)).text());
});
afterAll(async () => {
  await runtime?.stop();
});

interface PollOptions {
  readonly appKey?: string;
  readonly secret?: string;
  readonly signer?: KeyObject;
  readonly now?: Date;
  readonly style?: 'json' | 'python';
  readonly omit?: string;
}

/** GET /v1/poll as a v1 client library sent it. */
async function poll(authRequest: string, options: PollOptions = {}) {
  const built = buildV1Credentials({
    appKey: options.appKey ?? credentials.app_key,
    secret: options.secret ?? credentials.secret,
    apiPublicKey,
    servicePrivateKey: options.signer ?? scene.serviceKey.privateKey,
    now: options.now ?? new Date(),
    ...(options.style ? { style: options.style } : {}),
  });
  const query = new URLSearchParams({ auth_request: authRequest, ...built });
  if (options.omit) query.delete(options.omit);
  const response = await fetch(`${runtime.baseUrl}/v1/poll?${query.toString()}`);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const failure = (status: number, messageCode: number) => ({
  status,
  body: expect.objectContaining({ successful: false, status_code: status, message_code: messageCode }),
});

describe('GET /v1/ping', () => {
  it('gives the key to encrypt the secret to and the time to stamp it with', async () => {
    const response = await fetch(`${runtime.baseUrl}/v1/ping`);
    const body = (await response.json()) as { key: string; launchkey_time: string };
    expect(response.status).toBe(200);
    expect(importPublicKey(body.key).equals(apiPublicKey)).toBe(true);
    expect(body.launchkey_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(Math.abs(Date.parse(`${body.launchkey_time.replace(' ', 'T')}Z`) - Date.now())).toBeLessThan(
      5_000,
    );
  });
});

describe('GET /v1/poll', () => {
  it('answers 400/70403 while pending, then 200 with the v1 package the service decrypts', async () => {
    const created = await scene.ask({ username: 'alice' });
    expect(await poll(created.auth_request)).toEqual({
      status: 400,
      body: {
        successful: false,
        status_code: 400,
        message: 'Pending response',
        message_code: 70403,
        response: '',
      },
    });
    const [pending] = await alice.pending();
    const answered = await alice.answer(pending as NonNullable<typeof pending>, { approve: true });

    const done = await poll(created.auth_request, { style: 'python' });
    expect(done.status).toBe(200);
    const v3 = (await scene.read(created.auth_request)).body;
    expect(done.body.user_hash).toBe(v3?.service_user_hash);
    expect(decryptV1AuthPackage(done.body.auth as string, scene.serviceKey.privateKey)).toEqual({
      response: true,
      auth_request: created.auth_request,
      device_id: alice.state.deviceId,
      app_pins: (answered.state.servicePins[scene.serviceId] ?? []).join(','),
    });
  });

  it('reports a denial as response false', async () => {
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await alice.pending();
    await alice.answer(pending as NonNullable<typeof pending>, { approve: false });
    const done = await poll(created.auth_request);
    expect(decryptV1AuthPackage(done.body.auth as string, scene.serviceKey.privateKey)).toMatchObject({
      response: false,
    });
  });

  it('answers a cancelled request as expired, and an unknown one as not pending', async () => {
    const created = await scene.ask({ username: 'alice' });
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
    expect(await poll(created.auth_request)).toEqual(failure(400, 70404));
    expect(await poll(crypto.randomUUID())).toEqual(failure(404, 70402));
  });

  it.each([
    ['an unknown app key', { appKey: '1234567890' }],
    ['a wrong secret', { secret: 'x'.repeat(32) }],
    ['a signature by another key', { signer: rsaKeyPair().privateKey }],
    ['a timestamp three minutes old', { now: new Date(Date.now() - 180_000) }],
    ['a timestamp three minutes ahead', { now: new Date(Date.now() + 180_000) }],
  ])('refuses %s with 401', async (_, options) => {
    expect(await poll(crypto.randomUUID(), options)).toEqual(failure(401, 70401));
  });

  it.each(['auth_request', 'app_key', 'secret_key', 'signature'])(
    'refuses a poll without %s',
    async (name) => {
      expect(await poll(crypto.randomUUID(), { omit: name })).toEqual(failure(400, 70401));
    },
  );

  it('stops honouring an app key once new credentials are issued', async () => {
    const { issueV1Credentials } = await import('#shared/use-cases/v1-poll');
    const previous = credentials;
    credentials = await issueV1Credentials(scene.serviceId);
    expect(await poll(crypto.randomUUID(), { appKey: previous.app_key, secret: previous.secret })).toEqual(
      failure(401, 70401),
    );
    expect(await poll(crypto.randomUUID())).toEqual(failure(404, 70402));
  });
});
