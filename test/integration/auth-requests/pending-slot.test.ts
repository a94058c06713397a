import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { ApiClient } from '#shared/client/api-client';
import type { AuthRequest } from '#shared/domain/auth-request';
import { type AuthScene, newAuthScene, replayableCreate } from '#test/support/auth-scene';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal, uniqueName } from '#test/support/tree';

/**
 * The user's one pending slot, which holds what the devices are shown of the request that claimed it: claimed only by
 * a first use of a signed create, read by the device list alone, and freed by every end of its request.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let store: {
  auths: typeof import('#shared/store/auth-requests');
  users: typeof import('#shared/store/users');
  writeTogether: typeof import('#shared/store/write-together').writeTogether;
};

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  // The store modules read the environment the runtime set.
  store = {
    auths: await import('#shared/store/auth-requests'),
    users: await import('#shared/store/users'),
    writeTogether: (await import('#shared/store/write-together')).writeTogether,
  };
});
afterAll(async () => {
  await runtime?.stop();
});

async function newUser(target = scene): Promise<{ username: string; device: Authenticator }> {
  const username = uniqueName('user').replace(' ', '-');
  return { username, device: await target.linkDevice(username) };
}

const listed = async (device: Authenticator) => (await device.pending()).map((each) => each.auth_request);
const cancel = (authRequest: string) =>
  scene.service.call('DELETE', `/service/v3/auths/${authRequest}`, { subject: `svc:${scene.serviceId}` });
const storedSlot = async (username: string) =>
  (await store.users.getUser({ directoryId: scene.directoryId, identifier: username }))?.pending;

describe('a replayed create', () => {
  it('is refused with AUTH-006 and leaves the first request the one pending', async () => {
    const { username, device } = await newUser();
    const { authRequest, replay } = await replayableCreate(scene, username);
    const replayed = await replay();
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ error_code: 'AUTH-006' });
    expect(await listed(device)).toEqual([authRequest]);
    expect((await storedSlot(username))?.authId).toBe(authRequest);
  });

  it('creates nothing even when the user is free again: its writes wait for the first use and fail', async () => {
    const { username, device } = await newUser();
    const { authRequest, replay } = await replayableCreate(scene, username);
    await cancel(authRequest);
    // The use case finds the user free and gets as far as its transaction, which the replay's refusal stops.
    const replayed = await replay();
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ error_code: 'AUTH-006' });
    expect(await listed(device)).toEqual([]);
    expect(await storedSlot(username)).toBeUndefined();
  });
});

describe('a slot claimed by the previous version, without what devices are shown', () => {
  it('is listed from its request with the service key, and its answer frees it', async () => {
    const { username, device } = await newUser();
    // A request as the previous version left it: the request's item, and a slot naming it with nothing else.
    const template = await scene.ask({ username });
    await cancel(template.auth_request);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const auth: AuthRequest = {
      ...((await store.auths.getAuthRequest(template.auth_request)) as AuthRequest),
      id: crypto.randomUUID(),
      status: 'PENDING',
      expiresAt: nowSeconds + 300,
    };
    await store.auths.putAuthRequest(auth);
    const key = { directoryId: scene.directoryId, identifier: username };
    const slot = { authId: auth.id, expiresAt: auth.expiresAt, serviceId: scene.serviceId };
    expect(await store.writeTogether([store.users.claimPendingSlotWrite(key, slot, nowSeconds)])).toEqual([]);
    expect(await storedSlot(username)).toEqual(slot);

    const [pending] = await device.pending();
    expect(pending).toMatchObject({
      auth_request: auth.id,
      service: { id: scene.serviceId },
      requester: { entity: `svc:${scene.serviceId}`, kid: scene.serviceKey.kid },
      service_key: { kid: scene.serviceKey.kid, public_key: expect.stringContaining('PUBLIC KEY') },
      device_ids: [device.state.deviceId],
    });
    await device.answer(pending as NonNullable<typeof pending>, { approve: true });
    const read = await scene.read(auth.id);
    expect(read.status).toBe(200);
    expect(await scene.open(read.body as NonNullable<typeof read.body>)).toMatchObject({
      type: 'AUTHORIZED',
    });
    expect(await storedSlot(username)).toBeUndefined();
    expect(await listed(device)).toEqual([]);
    const next = await scene.ask({ username });
    expect(await listed(device)).toEqual([next.auth_request]);
  });
});

describe('the device list', () => {
  it("shows the keys current when the request was made, as auth_jwe's requester key, not the service's keys now", async () => {
    const keyed = await newAuthScene(runtime);
    const { username, device } = await newUser(keyed);
    const created = await keyed.ask({ username });
    // The service rotates its key after asking: a new key, the old one deactivated.
    const asDirectory = { subject: `dir:${keyed.directoryId}` };
    const rotated = rsaKeyPair();
    await keyed.organization.client.call('POST', '/directory/v3/service/keys', {
      ...asDirectory,
      body: { service_id: keyed.serviceId, public_key: rotated.publicPem },
    });
    const deactivated = await keyed.organization.client.call('PATCH', '/directory/v3/service/keys', {
      ...asDirectory,
      body: { service_id: keyed.serviceId, key_id: keyed.serviceKey.kid, active: false },
    });
    expect(deactivated.status).toBe(204);

    const [pending] = await device.pending();
    expect(pending).toMatchObject({
      auth_request: created.auth_request,
      requester: { kid: keyed.serviceKey.kid },
      service_key: { kid: keyed.serviceKey.kid },
    });
    // The answer is sealed to the keys of the request, which the service still holds.
    await device.answer(pending as NonNullable<typeof pending>, { approve: true });
    const asRotated = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `svc:${keyed.serviceId}`,
      privateKeyPem: rotated.privatePem,
    });
    const read = await keyed.read(created.auth_request, asRotated);
    expect(read.status).toBe(200);
    expect(await keyed.open(read.body as NonNullable<typeof read.body>)).toMatchObject({
      type: 'AUTHORIZED',
    });
  });
});

describe('number matching', () => {
  it('frees the slot in the same write as the end by the last wrong code: the user can be asked at once', async () => {
    const { username, device } = await newUser();
    const created = (await scene.ask({ username, number_matching: true })) as { number_match_code?: string };
    const wrong = String((Number(created.number_match_code) + 1) % 1000).padStart(3, '0');
    const [pending] = await device.pending();
    const view = pending as NonNullable<typeof pending>;
    for (const code of ['SVC-009', 'SVC-009', 'SVC-008']) {
      expect((await refusal(device.answer(view, { approve: true, numberMatchCode: wrong }))).errorCode).toBe(
        code,
      );
    }
    // Nothing else has touched the user since: the end itself freed the slot the device list reads.
    expect(await storedSlot(username)).toBeUndefined();
    expect(await listed(device)).toEqual([]);
    const next = await scene.ask({ username });
    expect(await listed(device)).toEqual([next.auth_request]);
  });
});
