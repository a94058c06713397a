import { createPrivateKey, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { keyId } from '#shared/protocol/kid';
import { type AuthScene, directoryName, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusedWith } from '#test/support/tree';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver';

/**
 * Device confirmation (docs/protocol.md#device-confirmation): the application's own keys can start a link for any
 * user, so a further device of a user who has one links only once one of the user's devices confirms it; and an
 * application that unlinks the user's devices first gets a device that cools off before it may answer.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let receiver: WebhookReceiver;

beforeAll(async () => {
  Object.assign(process.env, { WEBHOOK_RETRY_BASE_SECONDS: '1', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' });
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  const organizationKey: KeyObject = createPrivateKey(scene.organization.privateKeyPem);
  receiver = await startWebhookReceiver({
    apiBaseUrl: runtime.baseUrl,
    keys: new Map([[keyId(organizationKey), organizationKey]]),
    host: '0.0.0.0',
  });
  await scene.organization.client.call('PATCH', '/organization/v3/directories', {
    body: { directory_id: scene.directoryId, webhook_url: receiver.url('/hooks/directory') },
  });
});
afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

interface DeviceItem {
  id: string;
  name: string | null;
  status: number;
}

/** What an attacker holding the organization's key does: starts a link and links a device of its own with the code. */
async function linkWithApplicationKey(identifier: string, name = 'Attacker phone'): Promise<Authenticator> {
  const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
    ...asDirectory(),
    body: { identifier },
  });
  // Code-only linking, as the web authenticator does: on by default.
  const state = await linkAuthenticator({
    baseUrl: runtime.baseUrl,
    code: started.body?.code as string,
    name,
    type: 'Web',
  });
  return new Authenticator(state);
}

async function devices(identifier: string): Promise<DeviceItem[]> {
  return (
    await scene.organization.client.call<DeviceItem[]>('POST', '/directory/v3/devices/list', {
      ...asDirectory(),
      body: { identifier },
    })
  ).body as DeviceItem[];
}

const statusOf = async (identifier: string, device: Authenticator) =>
  (await devices(identifier)).find((each) => each.id === device.state.deviceId)?.status;

async function settings(changes: { deviceConfirmation?: 'on' | 'off'; coolingOff?: string }) {
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  return updateDirectorySettings(scene.directoryId, changes);
}

async function operatorConfirms(identifier: string, device: Authenticator) {
  const { overrideDeviceConfirmation } = await import('#shared/use-cases/confirm-device-link');
  return overrideDeviceConfirmation(
    { directoryId: scene.directoryId, identifier, deviceId: device.state.deviceId },
    { operator: 'test' },
    new Date(),
  );
}

const completionFor = (device: Authenticator) =>
  receiver.received.filter(
    (webhook) =>
      webhook.path === '/hooks/directory' &&
      webhook.body.type === 'DEVICE_LINK_COMPLETION' &&
      webhook.body.device_id === device.state.deviceId,
  );

describe('a further device linked with the application key alone', () => {
  it('stays LINK_PENDING and cannot get an approval through until a linked device confirms it', async () => {
    const phone = await scene.linkDevice('alice');
    const attacker = await linkWithApplicationKey('alice');

    expect(await attacker.linkState()).toMatchObject({ status: 'awaiting-confirmation' });
    expect(await statusOf('alice', attacker)).toBe(0);
    const created = await scene.ask({ username: 'alice' });
    expect(created.device_ids).toEqual([phone.state.deviceId]);
    // Not offered the request, and its answer refused: it cannot sign anything but its own link state.
    expect(await refusedWith(attacker.pending())).toEqual({ status: 401, code: 'AUTH-002' });
    const [request] = await phone.pending();
    if (!request) throw new Error('the phone was not offered the request');
    expect(await refusedWith(attacker.answer(request, { approve: true }))).toEqual({
      status: 401,
      code: 'AUTH-002',
    });
    expect(await refusedWith(attacker.linkRequests())).toEqual({ status: 401, code: 'AUTH-002' });
    expect((await scene.read(created.auth_request)).status).toBe(204);

    // The phone sees who wants to join.
    expect(await phone.linkRequests()).toEqual([
      {
        device_id: attacker.state.deviceId,
        name: 'Attacker phone',
        type: 'Web',
        directory: { id: scene.directoryId, name: expect.any(String) },
        requested: expect.any(String),
        expires: expect.any(String),
      },
    ]);
    expect(completionFor(attacker)).toEqual([]);
  });

  it('is linked, and its completion webhook sent, once a linked device approves it', async () => {
    const phone = await scene.linkDevice('bob');
    const tablet = await linkWithApplicationKey('bob', 'Tablet');
    // Waiting, it is told no names: nobody has allowed it yet.
    const waiting = await tablet.linkState();
    expect(waiting).not.toHaveProperty('directory');
    expect(waiting).not.toHaveProperty('organization');
    await phone.answerLinkRequest(tablet.state.deviceId, true);

    expect(await statusOf('bob', tablet)).toBe(1);
    // Linked, it is told whom it answers for by the names its user knows.
    expect(await tablet.linkState()).toMatchObject({
      status: 'linked',
      directory: { id: scene.directoryId, name: await directoryName(scene) },
      organization: { id: scene.organization.id, name: scene.organization.name },
    });
    const webhook = await receiver.waitFor(
      (each) => each.path === '/hooks/directory' && each.body.device_id === tablet.state.deviceId,
    );
    expect(webhook.body.type).toBe('DEVICE_LINK_COMPLETION');
    const created = await scene.ask({ username: 'bob' });
    expect(created.device_ids.sort()).toEqual([phone.state.deviceId, tablet.state.deviceId].sort());
    expect(await tablet.pending()).toHaveLength(1);
    expect(await phone.linkRequests()).toEqual([]);
  });

  it('is gone when a linked device refuses it', async () => {
    const phone = await scene.linkDevice('cleo');
    const attacker = await linkWithApplicationKey('cleo');
    await phone.answerLinkRequest(attacker.state.deviceId, false);

    expect(await statusOf('cleo', attacker)).toBeUndefined();
    expect(await refusedWith(attacker.linkState())).toEqual({ status: 401, code: 'AUTH-002' });
    expect(await refusedWith(phone.answerLinkRequest(attacker.state.deviceId, true))).toEqual({
      status: 404,
      code: 'HTTP-404',
    });
  });

  it('can no longer be confirmed once its wait is over, and stays unusable', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const phone = await scene.linkDevice('dora');
    const attacker = await linkWithApplicationKey('dora');
    vi.setSystemTime(Date.now() + 601_000);

    expect(await refusedWith(phone.answerLinkRequest(attacker.state.deviceId, true))).toEqual({
      status: 408,
      code: 'HTTP-408',
    });
    expect(await phone.linkRequests()).toEqual([]);
    expect(await attacker.linkState()).toMatchObject({ status: 'expired' });
    expect(await statusOf('dora', attacker)).toBe(0);
    expect(await refusedWith(attacker.pending())).toEqual({ status: 401, code: 'AUTH-002' });
  });

  it('is confirmed by the operator, for a user whose phone is lost', async () => {
    await scene.linkDevice('edda');
    const replacement = await linkWithApplicationKey('edda', 'Replacement');
    expect(await operatorConfirms('edda', replacement)).toEqual({ outcome: 'confirmed' });

    expect(await statusOf('edda', replacement)).toBe(1);
    expect((await scene.ask({ username: 'edda' })).device_ids).toContain(replacement.state.deviceId);
    await receiver.waitFor((each) => each.body.device_id === replacement.state.deviceId);
  });

  it('links at once, as before, when the directory turns confirmation off', async () => {
    expect(await settings({ deviceConfirmation: 'off' })).toMatchObject({ device_confirmation: 'off' });
    try {
      await scene.linkDevice('fay');
      const second = await linkWithApplicationKey('fay');
      expect(await statusOf('fay', second)).toBe(1);
      expect((await scene.ask({ username: 'fay' })).device_ids).toContain(second.state.deviceId);
    } finally {
      expect(await settings({ deviceConfirmation: 'on' })).toMatchObject({ device_confirmation: 'on' });
    }
  });
});

describe('the first device of a user', () => {
  it('links at once, with its completion webhook', async () => {
    const first = await linkWithApplicationKey('gus');
    expect(first.state.deviceId).toBeDefined();
    expect(await statusOf('gus', first)).toBe(1);
    await receiver.waitFor((each) => each.body.device_id === first.state.deviceId);
  });
});

describe("after an application unlinked the user's devices", () => {
  it('a new device links but cannot answer until the cooling-off ends or the operator confirms it', async () => {
    const phone = await scene.linkDevice('hal');
    await scene.unlinkDevice('hal', phone.state.deviceId);
    const attacker = await linkWithApplicationKey('hal');

    const state = await attacker.linkState();
    expect(state).toMatchObject({ status: 'linked', answers_from: expect.any(String) });
    const coolingOff = Date.parse(state.answers_from as string) - Date.now();
    expect(coolingOff).toBeGreaterThan(3 * 86_400_000 - 60_000);
    expect(
      await refusedWith(
        scene.service.call('POST', '/service/v3/auths', {
          subject: `svc:${scene.serviceId}`,
          body: { username: 'hal' },
        }),
      ),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    // Nor does it confirm another device of the attacker's.
    const second = await linkWithApplicationKey('hal');
    expect(await refusedWith(attacker.answerLinkRequest(second.state.deviceId, true))).toEqual({
      status: 403,
      code: 'HTTP-403',
    });
    expect(await second.linkState()).toMatchObject({ status: 'linked', answers_from: state.answers_from });

    expect(await operatorConfirms('hal', attacker)).toEqual({ outcome: 'cooling-off-ended' });
    expect((await scene.ask({ username: 'hal' })).device_ids).toEqual([attacker.state.deviceId]);
  });

  it('a new device answers once the cooling-off is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const phone = await scene.linkDevice('ida');
    await scene.unlinkDevice('ida', phone.state.deviceId);
    const next = await linkWithApplicationKey('ida');
    vi.setSystemTime(Date.parse((await next.linkState()).answers_from as string) + 1_000);
    expect((await scene.ask({ username: 'ida' })).device_ids).toEqual([next.state.deviceId]);
  });

  it('does not start when only a device that never linked was removed', async () => {
    await scene.linkDevice('jo');
    const started = await scene.organization.client.call<{ device_id: string }>(
      'POST',
      '/directory/v3/devices',
      {
        ...asDirectory(),
        body: { identifier: 'kim' },
      },
    );
    await scene.unlinkDevice('kim', started.body?.device_id as string);
    const first = await linkWithApplicationKey('kim');
    expect(await first.linkState()).toEqual({
      device_id: first.state.deviceId,
      directory_id: scene.directoryId,
      status: 'linked',
      directory: { id: scene.directoryId, name: expect.any(String) },
      organization: { id: scene.organization.id, name: scene.organization.name },
    });
  });
});
