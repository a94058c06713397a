import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, inviteToken, laptop, startConsoleScene, tablet } from './console-scene.ts';
import { screenshot } from '#test/support/browser';

/**
 * The console's pages (docs/console.md#pages) in a real Chromium against the local runtime: an invite enrolled with a
 * passkey, sign-in, the directories, sign-out, an ended session and unusable invites; each screen under WCAG 2.2 AA in
 * light and dark, and under the strict CSP.
 */

let scene: ConsoleScene;
let origin: string;
let store: ConsoleScene['store'];
let organizationId: string;
const hostileName = '<img src=x onerror="window.xss=1">';
const consolePage = () => scene.consolePage();
const token = inviteToken;

beforeAll(async () => {
  scene = await startConsoleScene();
  ({ origin, store } = scene);
  organizationId = (await store.organization('Console pages')).organization.id;
  await store.directory(organizationId, 'Payroll');
  await store.directory(organizationId, hostileName);
}, 120_000);
afterAll(() => scene?.close());

/** Enrols from a new invite for `role` and signs in: the person's path from the invite to the console. */
async function enrolAndSignIn(page: Page, role: 'auditor' | 'owner', name: string, problems: string[]) {
  const invite = await store.invite(organizationId, role, origin);
  await page.goto(`${origin}/console/#invite=${token(invite.url)}`, { waitUntil: 'load' });
  await shows(page, 'Join the console', problems);
  await page.locator('::-p-aria(Your name)').fill(name);
  await click(page, 'Create passkey');
  await shows(page, 'Your passkey is set up. Sign in with it now.', problems);
  await click(page, 'Sign in with a passkey');
}

describe('the console in a real browser', () => {
  it('enrols an auditor from an invite with a passkey, signs in, lists the directories by name and signs out', async () => {
    const { page, problems, cspViolations } = await consolePage();
    const invite = await store.invite(organizationId, 'auditor', origin);
    const response = await page.goto(`${origin}/console/#invite=${token(invite.url)}`, { waitUntil: 'load' });
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
    await shows(page, 'Join the console', problems);
    await expectAccessible(page, 'enrolment');
    await screenshot(page, 'console-enrolment');

    await click(page, 'Create passkey');
    await shows(page, 'Enter your name first.', problems);
    await page.locator('::-p-aria(Your name)').fill('Ada Auditor');
    await click(page, 'Create passkey');
    await shows(page, 'Your passkey is set up. Sign in with it now.', problems);
    // The used invite leaves the address bar and the history.
    expect(await page.evaluate(() => location.hash)).toBe('');
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'console-sign-in');

    await click(page, 'Sign in with a passkey');
    await shows(page, 'Directories', problems);
    await shows(page, 'Ada Auditor', problems);
    await shows(page, 'Auditor (read only)', problems);
    await shows(page, organizationId, problems);
    await shows(page, 'Payroll', problems);
    // A name is text, never markup: it shows as typed, and nothing it says ran.
    await shows(page, hostileName, problems);
    expect(await page.evaluate(() => document.querySelectorAll('main img').length)).toBe(0);
    expect(await page.evaluate(() => (window as { xss?: number }).xss)).toBeUndefined();
    await expectAccessible(page, 'home');

    await page.locator('button.directory::-p-text(Payroll)').click();
    await page.waitForSelector('#directory-details h2');
    await shows(page, 'SDK keys', problems);
    expect(await page.$eval('#directory-details h2', (heading) => heading.textContent)).toBe('Payroll');
    await expectAccessible(page, 'directory details');
    await screenshot(page, 'console-home');
    await page.setViewport(tablet);
    await screenshot(page, 'console-home-tablet');
    await page.setViewport(laptop);

    await click(page, 'Sign out');
    await shows(page, 'You are signed out.', problems);
    expect(await page.cookies()).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('takes a page whose session ended back to sign-in, saying so', async () => {
    const { page, problems, cspViolations } = await consolePage();
    await enrolAndSignIn(page, 'auditor', 'Idle Auditor', problems);
    await shows(page, 'Payroll', problems);
    const [cookie] = await page.cookies();
    await store.ageSession(`${cookie?.name}=${cookie?.value}`, {
      idleSeconds: 16 * 60,
      sinceSignInSeconds: 16 * 60,
    });
    await page.locator('button.directory::-p-text(Payroll)').click();
    await shows(page, 'Your session ended', problems);
    await shows(page, 'Sign in to the console', problems);
    await expectAccessible(page, 'session ended');
    expect(cspViolations).toEqual([]);
    // The refusal the browser logs itself, and nothing else.
    expect(problems.filter((each) => !each.includes('status of 401'))).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows a role that must approve its sign-in the approval step, not the directories', async () => {
    const { page, problems } = await consolePage();
    await enrolAndSignIn(page, 'owner', 'Olive Owner', problems);
    await shows(page, 'Approve this sign-in', problems);
    await shows(page, 'Olive Owner', problems);
    expect(await page.evaluate(() => document.body.innerText.includes('Payroll'))).toBe(false);
    await page.close();
  }, 120_000);

  it.each([
    ['unknown', () => Promise.resolve(randomBytes(32).toString('base64url'))],
    [
      'expired',
      async () =>
        token(
          (await store.invite(organizationId, 'auditor', origin, new Date(Date.now() - 31 * 60_000))).url,
        ),
    ],
  ])(
    'explains an %s invite before anyone types',
    async (_, invite) => {
      const { page, problems, cspViolations } = await consolePage();
      await page.goto(`${origin}/console/#invite=${await invite()}`, { waitUntil: 'load' });
      await shows(page, 'This invite cannot be used: it is unknown, already used or expired', problems);
      expect(await page.evaluate(() => document.querySelector('form')?.hidden)).toBe(true);
      await expectAccessible(page, 'unusable invite');
      await screenshot(page, 'console-invite-unusable');
      expect(cspViolations).toEqual([]);
      expect(problems.filter((each) => !each.includes('status of 403'))).toEqual([]);
      await page.close();
    },
    60_000,
  );

  it('serves the page under the strict CSP, never framed, with no inline script or style', async () => {
    const response = await fetch(`${origin}/console/`);
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain('<title>Console</title>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=/i);
    // The console's API keeps its own route under the pages' path.
    expect((await fetch(`${origin}/console/api/session`)).status).toBe(401);
  });
});
