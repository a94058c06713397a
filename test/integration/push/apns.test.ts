import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type ApnsServer, apnsFixture, startApnsServer, testTokenKey } from '#test/support/apns-server';
import type { AuthScene } from '#test/support/auth-scene';
import { type PushScene, startPushScene } from '#test/support/push-scene';
import type { TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';
import { until } from '#test/support/waiting';

let runtime: TestRuntime;
let scene: AuthScene;
let apns: ApnsServer;
let phone: Authenticator;
let patchDirectory: PushScene['patchDirectory'];
let cancel: PushScene['cancel'];
const token = 'A1B2'.repeat(16);
const pushP12 = apnsFixture('push.p12.base64').trim();
const alphaP12 = readFileSync(new URL('../../fixtures/alpha.p12.base64', import.meta.url), 'utf8').trim();

beforeAll(async () => {
  apns = await startApnsServer();
  ({ runtime, scene, phone, patchDirectory, cancel } = await startPushScene(
    {
      PUSH_APNS_URL: apns.urls.production,
      PUSH_APNS_SANDBOX_URL: apns.urls.sandbox,
      PUSH_CA_FILE: fileURLToPath(new URL('../../fixtures/apns/server-ca.pem', import.meta.url)),
    },
    'carol',
  ));
}, 60_000);
afterAll(async () => {
  await apns?.close();
  await runtime?.stop();
});

describe("a directory's APNs credentials", () => {
  it('refuses an APNs token while the directory has none', async () => {
    expect(await refusal(phone.registerPush({ apns: { token } }))).toMatchObject({
      status: 400,
      errorCode: 'ARG-001',
      message: expect.stringContaining('no APNs credentials'),
    });
  });

  it('takes a p12 that cannot push as LaunchKey did, showing its fingerprint, and still has nothing to push with', async () => {
    expect((await patchDirectory({ ios_p12: alphaP12 })).status).toBe(204);
    expect(await refusal(phone.registerPush({ apns: { token } }))).toMatchObject({ errorCode: 'ARG-001' });
  });

  it("keeps a push certificate's key sealed, never in the clear", async () => {
    expect((await patchDirectory({ ios_p12: pushP12 })).status).toBe(204);
    const { getSealedPushCredentials } = await import('#shared/store/push-credentials');
    const stored = await getSealedPushCredentials(scene.directoryId);
    expect(stored.apnsCertificate).toMatch(/^[A-Za-z0-9_-]{500,}$/);
    expect(JSON.stringify(stored)).not.toMatch(/PRIVATE KEY|CERTIFICATE|com\.example/);
  });
});

describe('pushing through APNs', () => {
  it('prompts with the certificate: an alert that expires and collapses with the request, then a background push to take it down', async () => {
    await phone.registerPush({ apns: { token } });
    expect((await phone.pushSettings()).channel).toBe('apns');
    const created = await scene.ask({
      username: 'carol',
      push_title: 'Sign in?',
      push_body: 'From Porto',
      ttl: 120,
    });
    const id = created.auth_request;
    const askedAt = Math.floor(Date.now() / 1000);
    const prompt = await apns.waitFor((each) => each.payload.auth_request === id);
    expect(prompt).toMatchObject({
      environment: 'production',
      auth: 'certificate',
      token: token.toLowerCase(),
    });
    expect(prompt.topic).toBe('com.example.authenticator');
    expect(prompt.headers).toMatchObject({
      'apns-topic': 'com.example.authenticator',
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-collapse-id': id,
    });
    expect(Number(prompt.headers['apns-expiration'])).toBeGreaterThanOrEqual(askedAt + 110);
    expect(Number(prompt.headers['apns-expiration'])).toBeLessThanOrEqual(askedAt + 121);
    expect(prompt.payload).toMatchObject({
      aps: { alert: { title: 'Sign in?', body: 'From Porto' } },
      type: 'auth_request',
      auth_request: id,
    });
    expect(Object.keys(prompt.payload).sort()).toEqual(['aps', 'auth_request', 'type']);

    await cancel(id);
    const ended = await apns.waitFor((each) => each.payload.type === 'auth_request_ended');
    expect(ended.headers).toMatchObject({
      'apns-push-type': 'background',
      'apns-priority': '5',
      'apns-collapse-id': id,
    });
    expect(ended.payload).toEqual({
      aps: { 'content-available': 1 },
      type: 'auth_request_ended',
      auth_request: id,
    });
    expect(apns.rejected).toEqual([]);
  });

  it("uses the operator's token key rather than the certificate, in the sandbox for a development build", async () => {
    const { currentHashKey } = await import('#shared/api-keys/current-hash-key');
    const { setApnsTokenKey } = await import('#shared/use-cases/directory-push');
    const view = await setApnsTokenKey(scene.directoryId, await currentHashKey(), testTokenKey);
    expect(view).toMatchObject({
      apns_uses: 'token key',
      apns_certificate: 'topic com.example.authenticator',
    });
    await phone.registerPush({ apns: { token, environment: 'sandbox' } });
    const created = await scene.ask({ username: 'carol' });
    const prompt = await apns.waitFor((each) => each.payload.auth_request === created.auth_request);
    expect(prompt).toMatchObject({ environment: 'sandbox', auth: 'token' });
    expect(prompt.claims).toMatchObject({ iss: testTokenKey.teamId });
    await cancel(created.auth_request);
    await apns.waitFor(
      (each) =>
        each.payload.auth_request === created.auth_request && each.payload.type === 'auth_request_ended',
    );
  });

  it('removes the channel when APNs says the token is Unregistered (410)', async () => {
    const gone = 'ee'.repeat(32);
    await phone.registerPush({ apns: { token: gone } });
    apns.answer(gone, { status: 410, reason: 'Unregistered' });
    const created = await scene.ask({ username: 'carol' });
    await until(async () => ((await phone.pushSettings()).channel === null ? true : undefined));
    expect(apns.requests.filter((each) => each.token === gone)).toEqual([
      { token: gone, status: 410, reason: 'Unregistered' },
    ]);
    await cancel(created.auth_request);
  });
});
