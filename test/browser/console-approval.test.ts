import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { addVirtualAuthenticator, launchBrowser, phonePage, screenshot } from '#test/support/browser';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { ensureWebAuthenticator } from '#web/authenticator/build';
import { ensureWebConsole } from '#web/console/build';

/**
 * The console's sign-in approval (docs/console.md#approval) in a real Chromium against the local runtime: an owner
 * enrolled with a passkey links their web authenticator from the console's offer, then approves the sign-in there
 * choosing the number the console shows, and the console goes on to its home.
 */

let runtime: TestRuntime;
let browser: Browser;
/** The runtime as a browser on this machine reaches it: `localhost`, a secure context and the passkeys' RP id. */
let origin: string;
let store: typeof import('#test/integration/console/console-store');
let organizationId: string;

beforeAll(async () => {
  await Promise.all([ensureWebConsole(), ensureWebAuthenticator()]);
  runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
  store = await import('#test/integration/console/console-store');
  organizationId = (await store.organization('Console approval')).organization.id;
  await store.directory(organizationId, 'Payroll');
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

/** A page with a platform authenticator, its problems collected. */
async function consolePage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await addVirtualAuthenticator(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, problems };
}

describe('the console sign-in approval in a real browser', () => {
  it('links the owner’s web authenticator from the console, approves the sign-in with its number and shows the home', async () => {
    const { page, problems } = await consolePage();
    const invite = await store.invite(organizationId, 'owner', origin);
    await page.goto(`${origin}/console/#invite=${new URL(invite.url).hash.replace(/^#invite=/, '')}`, {
      waitUntil: 'load',
    });
    await shows(page, 'Join the console', problems);
    await page.locator('::-p-aria(Your name)').fill('Olive Owner');
    await click(page, 'Create passkey');
    await shows(page, 'Your passkey is set up. Sign in with it now.', problems);
    await click(page, 'Sign in with a passkey');
    await shows(page, 'Approve this sign-in', problems);

    // No authenticator linked yet: the page offers the link, with its QR image and address.
    await click(page, 'Link your web authenticator');
    const address = await page.waitForSelector('a.address', { timeout: 15_000 });
    const url = (await address?.evaluate((link) => link.href)) as string;
    expect(url).toMatch(new RegExp(`^${origin}/authenticator/#code=`));
    await page.waitForFunction(
      () => {
        const image = document.querySelector<HTMLImageElement>('main img');
        return image?.complete && image.naturalWidth > 0;
      },
      { timeout: 15_000 },
    );
    await expectAccessible(page, 'approval link');

    // The web authenticator, in the same browser, links from that address as a person does.
    const phone = await phonePage(browser);
    const authenticator = phone.page;
    await addVirtualAuthenticator(authenticator);
    await authenticator.goto(url, { waitUntil: 'load' });
    await shows(authenticator, 'Linking code', phone.problems);
    await authenticator.locator('::-p-aria(Name this device)').fill('Olive’s laptop');
    await click(authenticator, 'Link this browser');
    await shows(authenticator, 'Add a passkey', phone.problems);
    await click(authenticator, 'Add a passkey');
    await shows(authenticator, 'Set a PIN', phone.problems);
    await authenticator.type('input[autocomplete="new-password"]', '2468');
    await authenticator.locator('::-p-aria(PIN again)').fill('2468');
    await click(authenticator, 'Set PIN');
    await shows(authenticator, 'Get notified', phone.problems);
    await click(authenticator, 'Continue without notifications');
    await authenticator.waitForSelector('section.card', { timeout: 15_000 });

    // Back on the console: it asks for the approval and shows the number to choose.
    await page.bringToFront();
    await click(page, 'Try again');
    const numberShown = await page.waitForSelector('p.number', { timeout: 15_000 });
    const number = (await numberShown?.evaluate((shown) => shown.textContent)) as string;
    expect(number).toMatch(/^\d{3}$/);
    await shows(page, 'approve on your web authenticator and choose', problems);
    await expectAccessible(page, 'approval');
    await screenshot(page, 'console-approval');
    // A reloaded page finds its approval pending (CON-008) and shows the same number again.
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(
      (wanted) => document.querySelector('p.number')?.textContent === wanted,
      { timeout: 15_000 },
      number,
    );

    // The authenticator shows the request; the person approves it choosing that number.
    await authenticator.bringToFront();
    await authenticator.evaluate(() => window.dispatchEvent(new Event('focus')));
    const field = await authenticator.waitForSelector('[data-request] input[name="number-match"]', {
      timeout: 15_000,
    });
    await field?.type(number);
    await click(authenticator, 'Approve');
    await shows(authenticator, 'Approved.', phone.problems);

    // The console sees the approval and goes on to its home.
    await page.bringToFront();
    await shows(page, 'Directories', problems);
    await shows(page, 'Payroll', problems);
    await shows(page, 'Olive Owner', problems);
    expect(await page.evaluate(() => document.body.innerText.includes('Approve this sign-in'))).toBe(false);
    // The console's refusals: the first approval, before any authenticator was linked, and the reloaded one's.
    expect(problems.filter((each) => !each.includes('status of 409'))).toEqual([]);
    expect(phone.problems).toEqual([]);
    await authenticator.close();
    await page.close();
  }, 180_000);
});
