import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
