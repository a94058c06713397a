import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusedWith } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
});
afterAll(async () => {
  await runtime?.stop();
});

interface TotpSetup {
  secret: string;
  algorithm: string;
  period: number;
  digits: number;
}

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

async function generateSecret(identifier: string): Promise<TotpSetup> {
  return (
    await scene.organization.client.call<TotpSetup>('POST', '/directory/v3/totp', {
      ...asDirectory(),
      body: { identifier },
    })
  ).body as TotpSetup;
}

async function verifyCode(identifier: string, otp: string): Promise<boolean> {
  const reply = await scene.service.call<{ valid: boolean }>('POST', '/service/v3/totp', {
    body: { identifier, otp },
  });
  return reply.body?.valid as boolean;
}

/** The whole answer of a verification, to see that a locked user gets the usual shape. */
async function verification(identifier: string, otp: string): Promise<{ status: number; body: unknown }> {
  const { status, body } = await scene.service.call('POST', '/service/v3/totp', {
    body: { identifier, otp },
  });
  return { status, body };
}

interface TotpState {
  configured: boolean;
  failed_attempts: number;
  locked: boolean;
  locked_until: string | null;
}

async function totpState(identifier: string): Promise<TotpState> {
  return (
    await scene.organization.client.call<TotpState>('POST', '/directory/v3/totp/item', {
      ...asDirectory(),
      body: { identifier },
    })
  ).body as TotpState;
}

/** The code an authenticator app shows `offsetPeriods` periods from now. */
async function codeFor(setup: TotpSetup, offsetPeriods = 0): Promise<string> {
  return generate({
    secret: setup.secret,
    algorithm: setup.algorithm.toLowerCase() as 'sha1',
    digits: setup.digits,
    period: setup.period,
    epoch: Math.floor(Date.now() / 1000) + offsetPeriods * setup.period,
  });
}

/** A code of the right shape that no time step near now produces, even if a step boundary passes meanwhile. */
async function wrongCode(setup: TotpSetup): Promise<string> {
  const near = new Set(await Promise.all([-2, -1, 0, 1, 2].map((offset) => codeFor(setup, offset))));
  let guess = 0;
  while (near.has(String(guess).padStart(setup.digits, '0'))) guess += 1;
  return String(guess).padStart(setup.digits, '0');
}

const unlocked: TotpState = { configured: true, failed_attempts: 0, locked: false, locked_until: null };

describe('TOTP', () => {
  it('generates an RFC 6238 secret a standard app can use, for a user it creates', async () => {
    const setup = await generateSecret('henry');
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(['SHA1', 'SHA256', 'SHA512']).toContain(setup.algorithm);
    expect(setup.digits).toBeGreaterThanOrEqual(6);
    expect(setup.period).toBeGreaterThanOrEqual(30);
    expect(await verifyCode('henry', await codeFor(setup))).toBe(true);
  });

  it('accepts a code once: the same code again is not valid', async () => {
    const setup = await generateSecret('iris');
    const code = await codeFor(setup);
    expect(await verifyCode('iris', code)).toBe(true);
    expect(await verifyCode('iris', code)).toBe(false);
  });

  it('allows one period of drift either way, not two', async () => {
    const setup = await generateSecret('jack');
    expect(await verifyCode('jack', await codeFor(setup, -3))).toBe(false);
    expect(await verifyCode('jack', await codeFor(setup, 3))).toBe(false);
    // A code from the step after is fine, but then the earlier ones are spent.
    expect(await verifyCode('jack', await codeFor(setup, 1))).toBe(true);
    expect(await verifyCode('jack', await codeFor(setup, 0))).toBe(false);
  });

  it('refuses wrong and malformed codes as not valid', async () => {
    const setup = await generateSecret('kate');
    const code = await codeFor(setup);
    const wrong = String((Number(code) + 1) % 10 ** setup.digits).padStart(setup.digits, '0');
    expect(await verifyCode('kate', wrong)).toBe(false);
    expect(await verifyCode('kate', 'abcdef')).toBe(false);
    expect(await verifyCode('kate', code.slice(1))).toBe(false);
    expect(await verifyCode('kate', code)).toBe(true);
  });

  it('replaces the secret when generated again', async () => {
    const first = await generateSecret('liam');
    const second = await generateSecret('liam');
    expect(second.secret).not.toBe(first.secret);
    expect(await verifyCode('liam', await codeFor(first))).toBe(false);
    expect(await verifyCode('liam', await codeFor(second))).toBe(true);
  });

  it('is 404 for a user without a secret; removal succeeds even for an unknown user', async () => {
    const setup = await generateSecret('mia');
    const removed = await scene.organization.client.call('DELETE', '/directory/v3/totp', {
      ...asDirectory(),
      body: { identifier: 'mia' },
    });
    expect(removed.status).toBe(204);
    expect(await refusedWith(verifyCode('mia', await codeFor(setup)))).toEqual({
      status: 404,
      code: 'HTTP-404',
    });
    expect(await refusedWith(verifyCode('nobody', '123456'))).toEqual({ status: 404, code: 'HTTP-404' });
    expect(
      (
        await scene.organization.client.call('DELETE', '/directory/v3/totp', {
          ...asDirectory(),
          body: { identifier: 'nobody' },
        })
      ).status,
    ).toBe(204);
  });
});

describe('TOTP attempt limit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('locks after 5 failures, malformed codes included, and refuses the right code in the usual shape', async () => {
    const setup = await generateSecret('nora');
    const wrong = await wrongCode(setup);
    for (const otp of [wrong, 'abcdef', wrong.slice(1), wrong])
      expect(await verifyCode('nora', otp)).toBe(false);
    expect(await totpState('nora')).toEqual({ ...unlocked, failed_attempts: 4 });
    const before = Date.now();
    expect(await verifyCode('nora', wrong)).toBe(false);
    const state = await totpState('nora');
    expect(state).toMatchObject({ configured: true, failed_attempts: 5, locked: true });
    expect(state.locked_until).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const lockEnd = Date.parse(state.locked_until as string);
    expect(lockEnd).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1_000);
    expect(lockEnd).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1_000);
    expect(await verification('nora', await codeFor(setup))).toEqual({ status: 200, body: { valid: false } });
    expect(await totpState('nora')).toEqual(state);
  });

  it('lets the right code through once the lock has ended, and not a moment before', async () => {
    const setup = await generateSecret('owen');
    const wrong = await wrongCode(setup);
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await verifyCode('owen', wrong)).toBe(false);
    const lockEnd = Date.parse((await totpState('owen')).locked_until as string);
    // The service runs in this process: moving the clock moves the service's, the client's and the app's together.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(lockEnd - 5_000);
    expect(await verifyCode('owen', await codeFor(setup))).toBe(false);
    expect((await totpState('owen')).locked).toBe(true);
    vi.setSystemTime(lockEnd + 1_000);
    expect(await totpState('owen')).toEqual(unlocked);
    expect(await verifyCode('owen', await codeFor(setup))).toBe(true);
    expect(await totpState('owen')).toEqual(unlocked);
  });

  it('starts counting again after a success', async () => {
    const setup = await generateSecret('paul');
    const wrong = await wrongCode(setup);
    for (let attempt = 0; attempt < 4; attempt += 1) expect(await verifyCode('paul', wrong)).toBe(false);
    expect((await totpState('paul')).failed_attempts).toBe(4);
    expect(await verifyCode('paul', await codeFor(setup))).toBe(true);
    expect(await totpState('paul')).toEqual(unlocked);
    for (let attempt = 0; attempt < 4; attempt += 1) expect(await verifyCode('paul', wrong)).toBe(false);
    // The next period's code: this period's was used.
    expect(await verifyCode('paul', await codeFor(setup, 1))).toBe(true);
    expect(await totpState('paul')).toEqual(unlocked);
  });

  it('checks at most 5 of 50 concurrent guesses, then refuses the right code', async () => {
    const setup = await generateSecret('quinn');
    const wrong = await wrongCode(setup);
    const answers = await Promise.all(Array.from({ length: 50 }, () => verification('quinn', wrong)));
    expect(
      answers.every((answer) => answer.status === 200 && (answer.body as { valid: boolean }).valid === false),
    ).toBe(true);
    expect(await totpState('quinn')).toMatchObject({ failed_attempts: 5, locked: true });
    expect(await verifyCode('quinn', await codeFor(setup))).toBe(false);
  });

  it('is cleared by generating a new secret, and by removing the secret', async () => {
    const first = await generateSecret('rose');
    const wrong = await wrongCode(first);
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await verifyCode('rose', wrong)).toBe(false);
    expect((await totpState('rose')).locked).toBe(true);
    const second = await generateSecret('rose');
    expect(await totpState('rose')).toEqual(unlocked);
    expect(await verifyCode('rose', await codeFor(second))).toBe(true);

    const wrongAgain = await wrongCode(second);
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await verifyCode('rose', wrongAgain)).toBe(false);
    expect((await totpState('rose')).locked).toBe(true);
    await scene.organization.client.call('DELETE', '/directory/v3/totp', {
      ...asDirectory(),
      body: { identifier: 'rose' },
    });
    expect(await totpState('rose')).toEqual({
      configured: false,
      failed_attempts: 0,
      locked: false,
      locked_until: null,
    });
    const third = await generateSecret('rose');
    expect(await verifyCode('rose', await codeFor(third))).toBe(true);
  });

  it('shows the state only for users the directory has', async () => {
    expect(await refusedWith(totpState('nobody-at-all'))).toEqual({ status: 404, code: 'HTTP-404' });
  });
});
