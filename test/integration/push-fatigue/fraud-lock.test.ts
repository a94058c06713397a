import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { denialReasons } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';

let runtime: TestRuntime;
let settings: typeof import('#shared/use-cases/directory-settings');

beforeAll(async () => {
  runtime = await startTestRuntime();
  settings = await import('#shared/use-cases/directory-settings');
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await runtime?.stop();
});

/** Asks the user with denial reasons and lets the device deny with `reason`. */
async function askAndDeny(scene: AuthScene, device: Authenticator, username: string, reason: string) {
  const created = await scene.ask({ username, denial_reasons: denialReasons });
  const [pending] = await device.pending();
  expect(pending?.auth_request).toBe(created.auth_request);
  const answered = await device.answer(pending as NonNullable<typeof pending>, {
    approve: false,
    denialReason: reason,
  });
  return { created, answered };
}

describe('the lock after a fraud denial', () => {
  it('is off by default: a user who denied as fraud can be asked again at once', async () => {
    const scene = await newAuthScene(runtime);
    const device = await scene.linkDevice('vera');
    const { answered } = await askAndDeny(scene, device, 'vera', 'NOTME');
    expect(answered.evaluation.reason).toBe('FRAUDULENT');
    expect((await scene.ask({ username: 'vera' })).auth_request).toMatch(/^[\da-f-]{36}$/);
    await expect(settings.listLockedUsers(scene.directoryId, new Date())).resolves.toEqual([]);
  });

  it('once on, answers 429 USR-002 until the lock ends, and only after a fraud denial', async () => {
    const scene = await newAuthScene(runtime);
    await expect(settings.updateDirectorySettings(scene.directoryId, { fraudLock: '900' })).resolves.toEqual({
      directory_id: scene.directoryId,
      rate_limit: '30/600',
      fraud_lock: '900',
      web_linking: 'on',
      proven_factors: 'off',
      device_confirmation: 'on',
      cooling_off: '259200',
    });
    const device = await scene.linkDevice('walt');
    // A denial that is not fraud locks nobody.
    await askAndDeny(scene, device, 'walt', 'LATER');
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Math.floor(Date.now() / 1000) * 1000);
    const deniedAt = Math.floor(Date.now() / 1000);
    await askAndDeny(scene, device, 'walt', 'NOTME');
    const refused = await refusal(scene.ask({ username: 'walt' }));
    expect(refused.status).toBe(429);
    expect(refused.errorCode).toBe('USR-002');
    expect(refused.errorData?.retry_after).toBeGreaterThan(890);
    expect(refused.errorData?.retry_after).toBeLessThanOrEqual(900);
    const locks = await settings.listLockedUsers(scene.directoryId, new Date());
    expect(locks).toEqual([
      {
        identifier: 'walt',
        locked_until: new Date((deniedAt + 900) * 1000).toISOString().replace('.000', ''),
      },
    ]);
    expect(refused.errorData?.locked_until).toBe(locks[0]?.locked_until);

    vi.setSystemTime((deniedAt + 901) * 1000);
    expect((await scene.ask({ username: 'walt' })).auth_request).toMatch(/^[\da-f-]{36}$/);
    await expect(settings.listLockedUsers(scene.directoryId, new Date())).resolves.toEqual([]);
  });

  it('is lifted by the operator', async () => {
    const scene = await newAuthScene(runtime);
    await settings.updateDirectorySettings(scene.directoryId, { fraudLock: '3600' });
    const device = await scene.linkDevice('xena');
    await askAndDeny(scene, device, 'xena', 'NOTME');
    expect((await refusal(scene.ask({ username: 'xena' }))).errorCode).toBe('USR-002');
    await settings.unlockUser(scene.directoryId, 'xena');
    await expect(settings.listLockedUsers(scene.directoryId, new Date())).resolves.toEqual([]);
    expect((await scene.ask({ username: 'xena' })).auth_request).toMatch(/^[\da-f-]{36}$/);
    await expect(settings.unlockUser(scene.directoryId, 'xena')).rejects.toThrow(/not locked/);
  });
});
