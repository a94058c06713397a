import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let settings: typeof import('#shared/use-cases/push-fatigue');

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  settings = await import('#shared/use-cases/push-fatigue');
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await runtime?.stop();
});

/** The service runs in this process: moving the clock moves the service's, the client's and the app's together. */
function startOfWindow(windowSeconds: number, offsetSeconds = 1): number {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  const now = Math.floor(Date.now() / 1000);
  const start = (now - (now % windowSeconds) + windowSeconds + offsetSeconds) * 1000;
  vi.setSystemTime(start);
  return start;
}

/** Asks the user and takes the request back at once, so only the rate limit can refuse the next one. */
async function askAndCancel(target: AuthScene, username: string): Promise<void> {
  const created = await target.ask({ username });
  expect(created.auth_request).toMatch(/^[\da-f-]{36}$/);
  await target.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
    subject: `svc:${target.serviceId}`,
  });
}

describe('the rate limit per user', () => {
  it('answers 429 USR-001 past 30 requests in 10 minutes, and frees the user in the next window', async () => {
    await scene.linkDevice('rita');
    const windowStart = startOfWindow(600);
    for (let sent = 0; sent < 30; sent++) await askAndCancel(scene, 'rita');
    const refused = await refusal(scene.ask({ username: 'rita' }));
    expect(refused.status).toBe(429);
    expect(refused.errorCode).toBe('USR-001');
    expect(refused.errorData).toMatchObject({ limit: 30, window_seconds: 600 });
    // The seconds left in the window, which began just before the first request.
    expect(refused.errorData?.retry_after).toBeGreaterThan(560);
    expect(refused.errorData?.retry_after).toBeLessThan(600);
    // Other users of the directory are counted on their own.
    await scene.linkDevice('sam');
    await askAndCancel(scene, 'sam');

    vi.setSystemTime(windowStart + 600_000);
    await askAndCancel(scene, 'rita');
  });

  it("honours the directory's own limit, set by the operator, and leaves the directory object as it was", async () => {
    const other = await newAuthScene(runtime);
    const readDirectory = () =>
      other.organization.client.call<unknown[]>('POST', '/organization/v3/directories/list', {
        body: { directory_ids: [other.directoryId] },
      });
    const before = (await readDirectory()).body;
    await expect(settings.updateDirectorySettings(other.directoryId, { rateLimit: '3/60' })).resolves.toEqual(
      {
        directory_id: other.directoryId,
        rate_limit: '3/60',
        fraud_lock: 'off',
        web_linking: 'on',
        device_confirmation: 'on',
        cooling_off: '259200',
      },
    );
    expect((await readDirectory()).body).toEqual(before);

    await other.linkDevice('tess');
    const windowStart = startOfWindow(60);
    for (let sent = 0; sent < 3; sent++) await askAndCancel(other, 'tess');
    const refused = await refusal(other.ask({ username: 'tess' }));
    expect({ status: refused.status, code: refused.errorCode, data: refused.errorData }).toEqual({
      status: 429,
      code: 'USR-001',
      data: { retry_after: expect.any(Number), limit: 3, window_seconds: 60 },
    });
    vi.setSystemTime(windowStart + 60_000);
    await askAndCancel(other, 'tess');
  });

  it('does not count a request refused because the user is busy', async () => {
    const other = await newAuthScene(runtime);
    await settings.updateDirectorySettings(other.directoryId, { rateLimit: '2/60' });
    await other.linkDevice('uma');
    startOfWindow(60);
    const first = await other.ask({ username: 'uma' });
    for (let tries = 0; tries < 3; tries++) {
      expect((await refusal(other.ask({ username: 'uma' }))).errorCode).toBe('SVC-005');
    }
    await other.service.call('DELETE', `/service/v3/auths/${first.auth_request}`, {
      subject: `svc:${other.serviceId}`,
    });
    await askAndCancel(other, 'uma');
    expect((await refusal(other.ask({ username: 'uma' }))).errorCode).toBe('USR-001');
  });

  it('refuses settings outside their bounds', async () => {
    for (const rateLimit of ['0/600', '10/30', '10', '10/100000', 'x/y'])
      await expect(settings.updateDirectorySettings(scene.directoryId, { rateLimit })).rejects.toThrow(
        /rate.limit/i,
      );
  });
});
