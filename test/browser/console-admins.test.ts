import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { screenshot } from '#test/support/browser';

/**
 * The console's admins section (docs/console.md#admin-management) in a real Chromium against the local runtime: an
 * owner invites a help desk admin who enrols from the address shown once, changes their role, removes them, and is
 * refused demoting themselves as the last owner; an owner resets the authenticator of an admin who lost it; an admin's
 * page offers no admins section.
 */

let scene: ConsoleScene;
const hostileName = '<img src=x onerror="window.xss=1">';

beforeAll(async () => {
  scene = await startConsoleScene();
}, 120_000);
afterAll(() => scene?.close());

const listedAdmins = async (page: Page) =>
  (await page.evaluate(() => fetch('api/admins').then((answer) => answer.json()))) as {
    admins: { id: string; name: string; role: string }[];
  };

const rowOf = (page: Page, name: string) =>
  page.evaluate(
    (wanted) =>
      [...document.querySelectorAll<HTMLTableRowElement>('tr[data-admin]')].find((row) =>
        row.cells[0]?.textContent?.startsWith(wanted),
      )?.dataset.admin ?? null,
    name,
  );

describe('the console’s admins section in a real browser', () => {
  it('lets an owner invite, change the role of and remove an admin, and keeps the last owner', async () => {
    const { organization } = await scene.store.organization(`Admins page ${Date.now()}`);
    const orgId = organization.id;
    const { page, problems, cspViolations } = await scene.signedInPage('owner', orgId, 'Olive Owner');

    await page.locator('nav.sections ::-p-aria(Admins)').click();
    await page.waitForSelector('tr[data-admin]', { timeout: 15_000 });
    await shows(page, 'Olive Owner', problems);
    await shows(page, 'No pending invites.', problems);

    // The invite: its address once, with its expiry.
    await page.select('#invite-role', 'helpdesk');
    await click(page, 'Invite');
    const shown = await page.waitForSelector('.invite-url', { timeout: 15_000 });
    const url = (await shown?.evaluate((code) => code.textContent)) as string;
    expect(url).toMatch(new RegExp(`^${scene.origin}/console/#invite=`));
    await shows(page, 'it is shown only once', problems);
    await shows(page, 'It works once, until', problems);
    await page.waitForFunction(
      () => document.querySelector('.admin-invites')?.textContent?.includes('Help desk'),
      {
        timeout: 15_000,
      },
    );
    await expectAccessible(page, 'admins with an invite');

    // The invited person enrols from that address in their own browser.
    const second = await scene.consolePage();
    await second.page.goto(url, { waitUntil: 'load' });
    await shows(second.page, 'Join the console', second.problems);
    await second.page.locator('::-p-aria(Your name)').fill(hostileName);
    await click(second.page, 'Create passkey');
    await shows(second.page, 'Your passkey is set up', second.problems);
    expect(second.problems).toEqual([]);
    await second.page.close();

    // The owner reads again and sees them, their name as text.
    await page.bringToFront();
    await click(page, 'Read again');
    await page.waitForFunction(() => document.querySelectorAll('tr[data-admin]').length === 2, {
      timeout: 15_000,
    });
    const newId = (await rowOf(page, hostileName)) as string;
    expect(newId).toBeTruthy();
    expect(await page.evaluate(() => document.querySelectorAll('.admins img').length)).toBe(0);
    expect(await page.evaluate(() => (window as { xss?: number }).xss)).toBeUndefined();
    await shows(page, 'No pending invites.', problems);
    await expectAccessible(page, 'admins');
    await screenshot(page, 'console-admins');

    // A role change, after a confirmation naming the person.
    await page.select(`#role-${newId}`, 'auditor');
    await page.locator(`tr[data-admin="${newId}"] ::-p-text(Change role)`).click();
    await shows(page, `Change the role of ${hostileName} from Help desk to Auditor`, problems);
    await page.locator('.confirm button.danger').click();
    await shows(page, `${hostileName} is now Auditor (read only).`, problems);
    expect((await listedAdmins(page)).admins.find((each) => each.id === newId)?.role).toBe('auditor');

    // A removal, after a confirmation naming the person.
    await page.locator(`tr[data-admin="${newId}"] ::-p-text(Remove)`).click();
    await shows(page, `Remove ${hostileName}?`, problems);
    await page.locator('.confirm button.danger').click();
    await shows(page, `${hostileName} was removed.`, problems);
    await page.waitForFunction(
      (id) => !document.querySelector(`tr[data-admin="${id}"]`),
      { timeout: 15_000 },
      newId,
    );
    expect((await listedAdmins(page)).admins.map((each) => each.id)).not.toContain(newId);

    // The last owner cannot make themselves an admin: the service's reason is shown.
    const ownId = (await rowOf(page, 'Olive Owner')) as string;
    await page.select(`#role-${ownId}`, 'admin');
    await page.locator(`tr[data-admin="${ownId}"] ::-p-text(Change role)`).click();
    await shows(page, 'Change the role of Olive Owner from Owner to Administrator', problems);
    await page.locator('.confirm button.danger').click();
    await shows(
      page,
      'The organization would be left without an owner: make someone else an owner first.',
      problems.filter((each) => !each.includes('status of 409')),
    );
    expect((await listedAdmins(page)).admins.find((each) => each.id === ownId)?.role).toBe('owner');

    expect(problems.filter((each) => !each.includes('status of 409'))).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('lets an owner reset the authenticator of an admin who lost it, after a confirmation naming them', async () => {
    const { organization } = await scene.store.organization(`Admins page ${Date.now()}`);
    const orgId = organization.id;
    const { consoleClient } = await import('#test/integration/console/console-client');
    const client = await consoleClient(scene.runtime);
    const admin = await client.signedIn('admin', orgId);
    await client.linkedAuthenticator(admin);
    const { page, problems, cspViolations } = await scene.signedInPage('owner', orgId, 'Olive Owner');

    await page.locator('nav.sections ::-p-aria(Admins)').click();
    await page.waitForSelector(`tr[data-admin="${admin.adminId}"]`, { timeout: 15_000 });
    const ownId = (await rowOf(page, 'Olive Owner')) as string;
    // Nobody resets their own: the owner's row, with no authenticator, offers none either way.
    expect(await page.$(`tr[data-admin="${ownId}"] ::-p-text(Reset authenticator)`)).toBeNull();
    await page.locator(`tr[data-admin="${admin.adminId}"] ::-p-text(Reset authenticator)`).click();
    await shows(page, 'Reset the authenticator of admin of the test?', problems);
    await expectAccessible(page, 'admins reset question');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await expectAccessible(page, 'admins reset question, dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await page.locator('.confirm button.danger').click();
    await shows(page, 'The authenticator of admin of the test was reset', problems);
    await page.waitForFunction(
      (id) => document.querySelector(`tr[data-admin="${id}"]`)?.textContent?.includes('Not linked') === true,
      { timeout: 15_000 },
      admin.adminId,
    );
    expect(await page.$(`tr[data-admin="${admin.adminId}"] ::-p-text(Reset authenticator)`)).toBeNull();
    // The service did it: the admin's session ended, and their next sign-in has no authenticator to approve on.
    expect((await client.call('GET', '/session', { session: admin })).status).toBe(401);
    const next = await client.signInAgain(admin);
    expect((await client.call('GET', '/authenticator', { session: next })).body).toMatchObject({
      linked: false,
    });

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('offers no admins section to an admin', async () => {
    const { organization } = await scene.store.organization(`Admins page ${Date.now()}`);
    const { page, problems, cspViolations } = await scene.signedInPage('admin', organization.id);
    const links = await page.$$eval('nav.sections a', (each) => each.map((link) => link.textContent));
    expect(links).toContain('Users');
    expect(links).not.toContain('Admins');
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
