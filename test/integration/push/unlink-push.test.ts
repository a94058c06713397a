import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { type PushReceiver, startPushReceiver } from '#test/support/push-receiver';
import { quickPushWorker } from '#test/support/push-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let runtime: TestRuntime;
let scene: AuthScene;
let receiver: PushReceiver;

/** Links a device for `identifier` and registers a Web Push subscription named `name` on it. */
async function linkWithChannel(identifier: string, name: string): Promise<Authenticator> {
  const device = await scene.linkDevice(identifier);
  const { status } = await deviceClient(runtime.baseUrl, device).call('PUT', '/device/v3/push', {
    body: { webpush: receiver.subscribe(name).json },
  });
  expect(status).toBe(204);
  return device;
}

async function deviceIds(identifier: string): Promise<string[]> {
  const { body } = await scene.organization.client.call<{ id: string }[]>(
    'POST',
    '/directory/v3/devices/list',
    {
      subject: `dir:${scene.directoryId}`,
      body: { identifier },
    },
  );
  return (body ?? []).map((device) => device.id);
}

const unlinkedPushesTo = (name: string) =>
  receiver.received.filter((push) => push.subscription === name && push.payload.type === 'device_unlinked');

beforeAll(async () => {
  Object.assign(process.env, { ...quickPushWorker });
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  receiver = await startPushReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

describe("the directory's unlink", () => {
  it('shows the unlinked device that it was removed, through its channel, and tells the other devices', async () => {
    const phone = await linkWithChannel('ulla', 'ulla-phone');
    const tablet = await linkWithChannel('ulla', 'ulla-tablet');
    expect((await scene.unlinkDevice('ulla', phone.state.deviceId)).status).toBe(204);

    const removed = await receiver.waitFor(
      (push) => push.subscription === 'ulla-phone' && push.payload.type === 'device_unlinked',
    );
    expect(removed.status).toBe(201);
    expect(removed.headers.urgency).toBe('high');
    expect({ title: removed.payload.title, body: removed.payload.body }).toEqual({
      title: 'This device was removed',
      body: 'If you did not do this, contact your administrator.',
    });
    // Declarative too: a browser shows it even when the page's worker was evicted, and it opens the page.
    expect(removed.payload).toMatchObject({
      web_push: 8030,
      notification: {
        title: 'This device was removed',
        body: 'If you did not do this, contact your administrator.',
        navigate: expect.stringMatching(/^http:\/\/localhost:\d+\/authenticator\/$/),
        require_interaction: false,
      },
    });
    const other = await receiver.waitFor(
      (push) => push.subscription === 'ulla-tablet' && push.payload.type === 'device_unlinked',
    );
    expect(other.payload.title).toBe('A device was removed from your account');
    // Lock screens are public: what people see names no device, user or directory.
    for (const push of [removed, other]) {
      const shown = JSON.stringify([push.payload.title, push.payload.body]);
      for (const secret of [phone.state.deviceId, tablet.state.deviceId, scene.directoryId, 'ulla'])
        expect(shown).not.toContain(secret);
    }
    expect(await deviceIds('ulla')).toEqual([tablet.state.deviceId]);
    expect(receiver.rejected).toEqual([]);
  });
});

describe("a device's own unlink", () => {
  it('pushes nothing, to the device or to the other devices', async () => {
    const phone = await linkWithChannel('uwe', 'uwe-phone');
    const tablet = await linkWithChannel('uwe', 'uwe-tablet');
    expect((await deviceClient(runtime.baseUrl, phone).call('DELETE', '/device/v3/link')).status).toBe(204);
    // Then the directory unlinks the tablet: its push comes after anything the phone's own unlink could have queued.
    expect((await scene.unlinkDevice('uwe', tablet.state.deviceId)).status).toBe(204);
    await receiver.waitFor(
      (push) => push.subscription === 'uwe-tablet' && push.payload.title === 'This device was removed',
    );

    expect(unlinkedPushesTo('uwe-phone')).toEqual([]);
    expect(unlinkedPushesTo('uwe-tablet').map((push) => push.payload.title)).toEqual([
      'This device was removed',
    ]);
    expect(await deviceIds('uwe')).toEqual([]);
  });
});
