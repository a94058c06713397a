import type { BrowserContext, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVirtualAuthenticator, phonePage, screenshot } from '#test/support/browser';
import { expectAccessible } from './axe.ts';
import { click, linkFromQr, type PageScene, qrCode, shows, startPageScene } from './page-scene.ts';

/**
 * A further device of a user who has a linked web authenticator (docs/protocol.md#device-confirmation): the new
 * browser waits, the linked one shows "A new device wants to join", and the answer there decides.
 */

let scene: PageScene;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  scene = await startPageScene();
  await linkFromQr(scene, 'alice', 'Alice’s phone');
}, 120_000);
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await scene?.close();
});

/** Another phone: a browser context of its own, so it keeps its own keys, as a second device does. */
async function otherPhone(): Promise<{ page: Page; problems: string[] }> {
  const context = await scene.browser.createBrowserContext();
  contexts.push(context);
  const phone = await phonePage(context);
  await addVirtualAuthenticator(phone.page);
  return phone;
}

/** The new phone presents a fresh code for alice and shows that it waits; its device id, from the screen. */
async function linkWaiting(page: Page, problems: string[], name: string): Promise<string> {
  const code = await qrCode(scene.scene, 'alice');
  await page.goto(`${scene.origin}/authenticator/#code=${code}`, { waitUntil: 'load' });
  await shows(page, `Linking code ${code}`, problems);
  await page.locator('::-p-aria(Name this device)').fill(name);
  await click(page, 'Link this browser');
  await shows(page, 'Waiting for your other device to allow this one', problems);
  await shows(page, 'This request ends in', problems);
  const waiting = await page.waitForSelector('[data-awaiting]');
  return (await waiting?.evaluate((element) => element.getAttribute('data-awaiting'))) as string;
}

/** The linked phone's card for the new device, once the page reads its lists again (as on focus or a push). */
async function joinCard(deviceId: string): Promise<string> {
  const { page } = scene;
  await page.bringToFront();
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  const card = await page.waitForSelector(`[data-link-request="${deviceId}"]`, { timeout: 15_000 });
  return (await card?.evaluate((element) => (element as HTMLElement).innerText)) as string;
}

async function listed(): Promise<{ id: string; status: number }[]> {
  const { body } = await scene.scene.organization.client.call<{ id: string; status: number }[]>(
    'POST',
    '/directory/v3/devices/list',
    { subject: `dir:${scene.scene.directoryId}`, body: { identifier: 'alice' } },
  );
  return body ?? [];
}

describe('a further web authenticator of a user', () => {
  it('waits until the linked one allows it, after a second tap, then links', async () => {
    const laptop = await otherPhone();
    const deviceId = await linkWaiting(laptop.page, laptop.problems, 'Alice’s laptop');
    await screenshot(laptop.page, 'link-waiting');
    await expectAccessible(laptop.page, 'waiting to be allowed');
    expect(await listed()).toContainEqual(expect.objectContaining({ id: deviceId, status: 0 }));

    const text = await joinCard(deviceId);
    expect(text).toContain('A new device wants to join');
    expect(text).toContain('Alice’s laptop');
    expect(text).toContain('Web browser');
    expect(text).toMatch(/Asked .*(ago|now)/);
    expect(text).not.toContain(deviceId);
    expect(text).not.toContain(scene.scene.directoryId);
    await screenshot(scene.page, 'link-request');
    await expectAccessible(scene.page, 'a new device wants to join');

    const card = `[data-link-request="${deviceId}"]`;
    await scene.page.locator(`${card} button::-p-text(Allow)`).click();
    await shows(scene.page, 'Only allow if you are setting up this new device yourself', scene.problems);
    // The first tap sent nothing: the new device still waits.
    expect(await listed()).toContainEqual(expect.objectContaining({ id: deviceId, status: 0 }));
    await screenshot(scene.page, 'link-request-allow');
    await expectAccessible(scene.page, 'allowing a new device');
    await scene.page.locator(`${card} button::-p-text(Yes, allow it)`).click();
    await scene.page.waitForSelector(card, { hidden: true });
    await shows(scene.page, 'Allowed. “Alice’s laptop” is now linked.', scene.problems);
    expect(await listed()).toContainEqual(expect.objectContaining({ id: deviceId, status: 1 }));

    // The new phone sees it on its next look, and goes on to set itself up.
    await laptop.page.bringToFront();
    await shows(laptop.page, 'Your other device allowed this one: it is linked.', laptop.problems);
    await shows(laptop.page, 'Add a passkey', laptop.problems);
    await click(laptop.page, 'Continue without a passkey');
    await shows(laptop.page, 'Set a PIN', laptop.problems);
    await click(laptop.page, 'Skip');
    await shows(laptop.page, 'Get notified', laptop.problems);
    await click(laptop.page, 'Continue without notifications');
    await shows(laptop.page, 'No request is waiting.', laptop.problems);
    expect(await laptop.page.$(`section.card[data-device="${deviceId}"]`)).not.toBeNull();
    expect(laptop.problems).toEqual([]);
    expect(scene.problems).toEqual([]);
  }, 120_000);

  it('says so on the new device when the linked one refuses it, and offers to start again', async () => {
    const tablet = await otherPhone();
    const deviceId = await linkWaiting(tablet.page, tablet.problems, 'Unknown tablet');
    expect(await joinCard(deviceId)).toContain('Unknown tablet');
    await scene.page.locator(`[data-link-request="${deviceId}"] button::-p-text(Refuse)`).click();
    await scene.page.waitForSelector(`[data-link-request="${deviceId}"]`, { hidden: true });
    await shows(scene.page, 'Refused. “Unknown tablet” will not be linked.', scene.problems);
    expect((await listed()).map((device) => device.id)).not.toContain(deviceId);

    await tablet.page.bringToFront();
    await shows(tablet.page, 'This device was refused, so it is not linked.', tablet.problems);
    await screenshot(tablet.page, 'link-refused');
    await click(tablet.page, 'Start again');
    await shows(tablet.page, 'No device linked yet', tablet.problems);
    expect(await tablet.page.evaluate(() => document.body.innerText)).not.toContain('deleted the keys');
    // The refused device's key no longer signs: its one look after the refusal is the only failed load.
    expect(tablet.problems.filter((problem) => !problem.includes('status of 401'))).toEqual([]);
    expect(scene.problems).toEqual([]);
  }, 120_000);
});
