import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let settings: typeof import('#shared/use-cases/directory-settings');

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  settings = await import('#shared/use-cases/directory-settings');
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
  it('answers 429 USR-001 past 30 requests in 10 minutes, and lets the user be asked as they slide out', async () => {
    await scene.linkDevice('rita');
    startOfWindow(600);
    for (let sent = 0; sent < 30; sent++) await askAndCancel(scene, 'rita');
    const refused = await refusal(scene.ask({ username: 'rita' }));
    const refusedAt = Math.floor(Date.now() / 1000);
    expect(refused.status).toBe(429);
    expect(refused.errorCode).toBe('USR-001');
    expect(refused.errorData).toMatchObject({ limit: 30, window_seconds: 600 });
    // The rest of the window, and 20 seconds of the next, when the 30 requests of this one weigh 29.
    const retryAfter = refused.errorData?.retry_after as number;
    expect(retryAfter).toBeGreaterThan(580);
    expect(retryAfter).toBeLessThan(620);
    // Other users of the directory are counted on their own.
    await scene.linkDevice('sam');
    await askAndCancel(scene, 'sam');

    vi.setSystemTime((refusedAt + retryAfter - 3) * 1000);
    expect((await refusal(scene.ask({ username: 'rita' }))).errorCode).toBe('USR-001');
    vi.setSystemTime((refusedAt + retryAfter + 1) * 1000);
    await askAndCancel(scene, 'rita');
  });

  it('refuses a burst across the edge of a window past the limit, where fixed windows let a second one through', async () => {
    const other = await newAuthScene(runtime);
    await settings.updateDirectorySettings(other.directoryId, { rateLimit: '5/600' });
    await other.linkDevice('vic');
    const lateInWindow = startOfWindow(600, 580);
    for (let sent = 0; sent < 5; sent++) await askAndCancel(other, 'vic');
    // 5 seconds into the next window.
    vi.setSystemTime(lateInWindow + 25_000);
    const refused = await refusal(other.ask({ username: 'vic' }));
    expect({ status: refused.status, code: refused.errorCode }).toEqual({ status: 429, code: 'USR-001' });
    // Until the 5 requests weigh 4: a fifth of the window after its start.
    expect(refused.errorData?.retry_after).toBeGreaterThan(100);
    expect(refused.errorData?.retry_after).toBeLessThanOrEqual(115);
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
        proven_factors: 'off',
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
    // A window later the 3 still weigh almost all of theirs; a whole window after that, nothing.
    vi.setSystemTime(windowStart + 60_000);
    expect((await refusal(other.ask({ username: 'tess' }))).errorCode).toBe('USR-001');
    vi.setSystemTime(windowStart + 120_000);
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
