import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from '#test/support/browser';
import { expectAccessible } from './axe.ts';
import { click, linkFromQr, type PageScene, qrCode, shows, startPageScene } from './page-scene.ts';

/**
 * Where passkeys can and cannot work, and the passkey manager told of an unlink: the page opened at an IP address
 * says so and offers no passkey, and an unlink (here or by the directory) reaches the WebAuthn Signal API.
 */
let pageScene: PageScene;
let page: Page;

beforeAll(async () => {
  pageScene = await startPageScene();
  ({ page } = pageScene);
  // Headless Chromium may lack the Signal API: a stand-in records what the page tells the passkey manager.
  await page.evaluateOnNewDocument(() => {
    const calls = () => JSON.parse(localStorage.getItem('signal-calls') ?? '[]') as unknown[];
    Object.defineProperty(PublicKeyCredential, 'signalUnknownCredential', {
      configurable: true,
      value: (options: unknown) => {
        localStorage.setItem('signal-calls', JSON.stringify([...calls(), options]));
        return Promise.resolve();
      },
    });
  });
}, 120_000);
afterAll(async () => {
  await pageScene?.close();
});

const signalled = () =>
  page.evaluate(() => JSON.parse(localStorage.getItem('signal-calls') ?? '[]') as unknown[]);

/** The newest passkey the virtual authenticator holds, by its id as WebAuthn's JSON spells it (base64url). */
async function newPasskey(before: readonly string[]): Promise<string> {
  const made = (await pageScene.passkey.credentials()).find((each) => !before.includes(each.credentialId));
  return Buffer.from(made?.credentialId ?? '', 'base64').toString('base64url');
}

describe('the page opened at an IP address', () => {
  it('says passkeys cannot work there, links to the same page at localhost, and offers no passkey', async () => {
    const { runtime, problems } = pageScene;
    const atIp = new URL(runtime.baseUrl);
    atIp.hostname = '127.0.0.1';
    const code = await qrCode(pageScene.scene, 'ivy');
    await page.goto(`${atIp.origin}/authenticator/#code=${code}`, { waitUntil: 'load' });
    await shows(page, 'Passkeys cannot work at 127.0.0.1', problems);
    const link = await page.$eval('[data-passkey-place] a', (anchor) => anchor.href);
    expect(link).toBe(`${pageScene.origin}/authenticator/#code=${code}`);
    await expectAccessible(page, 'IP address, link screen');

    // Linking still works here; the passkey step explains itself instead of offering a ceremony that must fail.
    await page.locator('::-p-aria(Name this device)').fill('Laptop');
    await click(page, 'Link this browser');
    await shows(page, 'Continue without a passkey', problems);
    await shows(page, 'never an IP address', problems);
    const buttons = await page.$$eval('button', (all) => all.map((button) => button.textContent));
    expect(buttons).not.toContain('Add a passkey');
    await screenshot(page, 'passkey-at-ip-address');
    await expectAccessible(page, 'IP address, passkey step');
  }, 120_000);
});

describe('an unlink', () => {
  it("tells the browser's passkey manager when the person unlinks on the page", async () => {
    const before = (await pageScene.passkey.credentials()).map((each) => each.credentialId);
    await linkFromQr(pageScene, 'una', 'Phone');
    const credentialId = await newPasskey(before);
    await click(page, 'Unlink this device');
    await click(page, 'Yes, unlink');
    await shows(page, 'is unlinked', pageScene.problems);
    expect(await signalled()).toEqual([{ rpId: 'localhost', credentialId }]);
  }, 120_000);

  it('tells it when the page next opens after the directory unlinked the device', async () => {
    const before = (await pageScene.passkey.credentials()).map((each) => each.credentialId);
    const deviceId = await linkFromQr(pageScene, 'dora', 'Tablet');
    const credentialId = await newPasskey(before);
    expect((await pageScene.scene.unlinkDevice('dora', deviceId)).status).toBe(204);
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(
      (id) =>
        (JSON.parse(localStorage.getItem('signal-calls') ?? '[]') as { credentialId: string }[]).some(
          (call) => call.credentialId === id,
        ),
      { timeout: 15_000 },
      credentialId,
    );
    expect(await signalled()).toContainEqual({ rpId: 'localhost', credentialId });
    // The service's refusal of the unlinked device's key is expected here, and only that.
    const problems = pageScene.problems.filter((problem) => !/status of 40[14]/.test(problem));
    expect(problems).toEqual([]);
  }, 120_000);
});
