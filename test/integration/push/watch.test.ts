import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WatchedPush, watchPushes } from '#shared/cli/push-watch';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let runtime: TestRuntime;
let scene: AuthScene;
beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

async function until<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out');
}

describe("the reference authenticator's push watch", () => {
  it('registers a loopback subscription, decrypts each push, and removes the subscription when stopped', async () => {
    const device = await scene.linkDevice('walt');
    const pushes: WatchedPush[] = [];
    const rejected: string[] = [];
    const watching = await watchPushes(device, {
      onPush: (push) => pushes.push(push),
      onRejected: (reason) => rejected.push(reason),
    });
    expect((await device.pushSettings()).channel).toBe('webpush');
    const created = await scene.ask({ username: 'walt', push_title: 'Walt, is that you?' });
    const prompt = await until(() => pushes.find((push) => push.auth_request === created.auth_request));
    expect(prompt).toMatchObject({ type: 'auth_request', title: 'Walt, is that you?' });
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
      subject: `svc:${scene.serviceId}`,
    });
    const ended = await until(() => pushes.find((push) => push.type === 'auth_request_ended'));
    expect(ended).toMatchObject({ auth_request: created.auth_request, body: 'Cancelled' });
    expect(rejected).toEqual([]);
    await watching.stop();
    expect((await device.pushSettings()).channel).toBeNull();
  });
});
