import type { HTTPRequest } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, linkFromQr, type PageScene, qrCode, shows, startPageScene } from './page-scene.ts';

/**
 * An open page with notifications declined learns of requests by itself, and its relative times stay true. Nothing
 * here sends a push or a focus event: what shows, shows because the page looked.
 */

let scene: PageScene;
/** The page's reads of its pending requests, as the network saw them. */
const reads: string[] = [];
/** Its reads of the new devices waiting to join, which it needs less often. */
const linkRequestReads: string[] = [];

const knowledge = {
  minimum_requirements: [{ requirement: 'authenticated', any: 0, knowledge: 1, inherence: 0, possession: 0 }],
  factors: [],
};

beforeAll(async () => {
  scene = await startPageScene();
  scene.page.on('request', (request: HTTPRequest) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === '/device/v3/auths')
      reads.push(request.url());
    if (request.method() === 'GET' && new URL(request.url()).pathname === '/device/v3/link-requests')
      linkRequestReads.push(request.url());
  });
}, 120_000);
afterAll(async () => {
  await scene?.close();
});

/** Waits, no longer than a person would, for the request's card on the open page. */
const appears = (authRequest: string) =>
  scene.page.waitForSelector(`[data-request="${authRequest}"]`, { timeout: 10_000 });

/** Requests a test made: the service takes them back after it, since a user has one pending request per service. */
const made: string[] = [];
afterEach(async () => {
  for (const authRequest of made.splice(0))
    await scene.scene.service
      .call('DELETE', `/service/v3/auths/${authRequest}`, { subject: `svc:${scene.scene.serviceId}` })
      .catch(() => undefined);
});

async function ask(body: Record<string, unknown>): Promise<string> {
  const { auth_request } = await scene.scene.ask(body);
  made.push(auth_request);
  return auth_request;
}

/** The page as a browser shows it when the person switches to another tab or app, or back. */
const setVisible = (visible: boolean) =>
  scene.page.evaluate((shown) => {
    Object.defineProperty(document, 'visibilityState', {
      configurable: true,
      get: () => (shown ? 'visible' : 'hidden'),
    });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => !shown });
    document.dispatchEvent(new Event('visibilitychange'));
  }, visible);

describe('an open web authenticator, notifications declined', () => {
  it('says a request made during setup came in, and shows it once setup ends', async () => {
    const { page, problems } = scene;
    const code = await qrCode(scene.scene, 'alice');
    await page.goto(`${scene.origin}/authenticator/#code=${code}`, { waitUntil: 'load' });
    await shows(page, `Linking code ${code}`, problems);
    await click(page, 'Link this browser');
    await shows(page, 'Add a passkey', problems);
    await click(page, 'Add a passkey');
    await shows(page, 'Set a PIN', problems);
    const created = await ask({ username: 'alice', title: 'Made during setup' });
    // Said while the person is still setting up, and answered once they are through.
    await page.waitForFunction(
      () => document.body.innerText.includes('you to approve. Finish or skip these steps to answer.'),
      { timeout: 10_000 },
    );
    await expectAccessible(page, 'a request during setup');
    await page.type('input[autocomplete="new-password"]', '2468');
    await page.locator('::-p-aria(PIN again)').fill('2468');
    await click(page, 'Set PIN');
    await shows(page, 'Get notified', problems);
    await click(page, 'Continue without notifications');
    await appears(created);
    await shows(page, 'Made during setup', problems);
    expect(problems).toEqual([]);
  }, 90_000);

  it('shows a request made while it is open within seconds, without a push', async () => {
    const created = await ask({ username: 'alice', title: 'Sign in while open' });
    await appears(created);
    expect(scene.problems).toEqual([]);
  }, 30_000);

  it('keeps its relative times true without drawing the request again', async () => {
    const created = await ask({ username: 'alice', title: 'Watch the clock' });
    // Brought up as a push or a focus would: what is on trial here is the clock alone.
    await scene.page.evaluate(() => window.dispatchEvent(new Event('focus')));
    const card = await appears(created);
    const times = `[data-request="${created}"] .times`;
    const before = await scene.page.$eval(times, (element) => (element as HTMLElement).innerText);
    expect(before).toMatch(/^Asked (now|\d+ seconds? ago)/);
    await scene.page.waitForFunction(
      (selector, first) => document.querySelector<HTMLElement>(selector)?.innerText !== first,
      { timeout: 10_000 },
      times,
      before,
    );
    expect(await scene.page.$eval(times, (element) => (element as HTMLElement).innerText)).toMatch(
      /^Asked \d+ seconds? ago · expires in \d+ minutes?$/,
    );
    // The same card, not a new one drawn over it.
    expect(await card?.evaluate((element) => element.isConnected)).toBe(true);
  }, 30_000);

  it('keeps a half-typed PIN and its focus when another request arrives', async () => {
    const { page } = scene;
    await linkFromQr(scene, 'bob', 'Bob’s phone');
    const alices = await ask({ username: 'alice', policy: knowledge, title: 'For Alice' });
    await appears(alices);
    const pin = `[data-request="${alices}"] input[name="pin"]`;
    await page.type(pin, '24');
    const bobs = await ask({ username: 'bob', title: 'For Bob' });
    await appears(bobs);
    const typed = await page.$eval(pin, (input) => ({
      value: (input as HTMLInputElement).value,
      focused: document.activeElement === input,
    }));
    expect(typed).toEqual({ value: '24', focused: true });
  }, 60_000);

  it('reads what else it shows on every fourth timed read only, its requests on each', async () => {
    const [requestsBefore, othersBefore] = [reads.length, linkRequestReads.length];
    // Each card reads on each tick; eight reads are four ticks or more, of which one or two read everything.
    await vi.waitFor(() => expect(reads.length).toBeGreaterThanOrEqual(requestsBefore + 8), {
      timeout: 40_000,
      interval: 200,
    });
    const [requests, others] = [reads.length - requestsBefore, linkRequestReads.length - othersBefore];
    expect(others).toBeGreaterThanOrEqual(1);
    expect(others * 2).toBeLessThanOrEqual(requests);
  }, 50_000);

  it('stops reading while hidden, and reads at once when shown again', async () => {
    await setVisible(false);
    // What was on its way when the page was hidden has arrived; from here on, nothing more is asked.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const readsWhenHidden = reads.length;
    const created = await ask({ username: 'alice', title: 'Made while hidden' });
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(reads.length).toBe(readsWhenHidden);
    expect(await scene.page.$(`[data-request="${created}"]`)).toBeNull();
    await setVisible(true);
    await appears(created);
    expect(reads.length).toBeGreaterThan(readsWhenHidden);
    expect(scene.problems).toEqual([]);
  }, 30_000);
});

describe('its cards', () => {
  it('go on screen with their lists and names drawn, so nothing moves under a finger on its way', async () => {
    const { page } = scene;
    // Where each card's buttons stand after every change to the page, from the first card drawn on.
    const watch = await page.evaluateOnNewDocument(() => {
      const seen = new Set<string>();
      Object.assign(window, { buttonsSeenAt: seen });
      new MutationObserver(() => {
        const buttons = [...document.querySelectorAll('section.card button')];
        if (buttons.length)
          seen.add(
            buttons
              .map(
                (button) =>
                  `${button.textContent}@${Math.round(button.getBoundingClientRect().top + scrollY)}`,
              )
              .join(' '),
          );
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    try {
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('section.card .unlink button', { timeout: 10_000 });
      // Long enough for a first read and the names to come in, were they drawn after the card.
      await new Promise((settle) => setTimeout(settle, 2_000));
      const seen = await page.evaluate(() => [
        ...(window as unknown as { buttonsSeenAt: Set<string> }).buttonsSeenAt,
      ]);
      expect(seen).toHaveLength(1);
    } finally {
      await page.removeScriptToEvaluateOnNewDocument(watch.identifier);
    }
  }, 30_000);
});
