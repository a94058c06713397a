import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkFromQr, type PageScene, shows, startPageScene } from './page-scene.ts';
import { screenshot } from '#test/support/browser';

/** Two people linked in one browser: a card each, and an answer on one card leaves the other's request alone. */

let scene: PageScene;

beforeAll(async () => {
  scene = await startPageScene();
}, 120_000);
afterAll(async () => {
  await scene?.close();
});

describe('two links in one browser', () => {
  it('shows a card per link, and approves on the second without touching the first', async () => {
    const { page } = scene;
    const alices = await linkFromQr(scene, 'alice', 'Alice’s phone');
    const bobs = await linkFromQr(scene, 'bob', 'Bob’s phone');
    expect(bobs).not.toBe(alices);
    const cards = await page.$$eval('section.card', (each) =>
      each.map((card) => [card.getAttribute('data-device'), card.querySelector('h2')?.textContent]),
    );
    expect(cards).toEqual(
      expect.arrayContaining([
        [alices, 'Alice’s phone'],
        [bobs, 'Bob’s phone'],
      ]),
    );
    expect(cards).toHaveLength(2);

    const forAlice = await scene.scene.ask({ username: 'alice', title: 'Sign in as Alice' });
    const forBob = await scene.scene.ask({ username: 'bob', title: 'Sign in as Bob' });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    const onCard = (device: string, request: string) =>
      `section.card[data-device="${device}"] [data-request="${request}"]`;
    await page.waitForSelector(onCard(alices, forAlice.auth_request));
    await page.waitForSelector(onCard(bobs, forBob.auth_request));
    await screenshot(page, 'two-links');

    await page.locator(`${onCard(bobs, forBob.auth_request)} button::-p-text(Approve)`).click();
    await page.waitForSelector(onCard(bobs, forBob.auth_request), { hidden: true });
    await shows(page, 'Approved.');
    const approved = await scene.scene.read(forBob.auth_request);
    expect(approved.status).toBe(200);
    expect(await scene.scene.open(approved.body as NonNullable<typeof approved.body>)).toMatchObject({
      type: 'AUTHORIZED',
      auth_request: forBob.auth_request,
    });
    // Alice's request is still waiting, on her card and at the service.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    expect(await page.$(onCard(alices, forAlice.auth_request))).not.toBeNull();
    expect(
      await page.$eval(`section.card[data-device="${alices}"]`, (card) => card.textContent),
    ).not.toContain('Approved.');
    expect((await scene.scene.read(forAlice.auth_request)).status).toBe(204);
    expect(scene.problems).toEqual([]);
  }, 120_000);
});
