import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { chooseOrganization } from './choose-organization.ts';
import { shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';

/**
 * The operator's organization chooser (docs/console.md#the-operators-organization-chooser) in a real Chromium: the
 * operator picks an organization on the Admins page and sees its admins, the choice kept across a reload and from
 * section to section through the navigation; the list the chooser reads is the operator's alone.
 */

let scene: ConsoleScene;

beforeAll(async () => {
  scene = await startConsoleScene();
}, 120_000);
afterAll(() => scene?.close());

describe('the operator’s organization chooser in a real browser', () => {
  it('lets the operator choose an organization on the Admins page and see its admins', async () => {
    const stamp = Date.now();
    const { organization: first } = await scene.store.organization(`Chooser first ${stamp}`);
    const { organization: second } = await scene.store.organization(`Chooser second ${stamp}`);
    const directoryName = `Chooser directory ${stamp}`;
    const directoryId = await scene.store.directory(second.id, directoryName);
    const firstOwner = await scene.signedInPage('owner', first.id, 'Frida First');
    await firstOwner.page.close();
    const secondOwner = await scene.signedInPage('owner', second.id, 'Sami Second');
    // An owner reads no list of organizations, and is offered no chooser.
    const refused = await secondOwner.page.evaluate(() =>
      fetch('api/organizations').then((reply) => reply.status),
    );
    expect(refused).toBe(403);
    await secondOwner.page.goto(`${scene.origin}/console/#admins`, { waitUntil: 'load' });
    await shows(secondOwner.page, 'Sami Second', secondOwner.problems);
    expect(await secondOwner.page.$('#organization-choice')).toBeNull();
    // An owner's navigation names no organization.
    expect(
      await secondOwner.page.$$eval('nav.sections a', (links) =>
        links.map((link) => link.getAttribute('href')),
      ),
    ).toEqual(expect.arrayContaining(['#services', '#keys', '#admins']));
    await secondOwner.page.close();

    const { page, problems, cspViolations } = await scene.signedInPage('operator', null, 'Otto Operator');
    await page.locator('nav.sections ::-p-aria(Admins)').click();
    await page.waitForSelector(`#organization-choice option[value="${second.id}"]`, { timeout: 15_000 });
    // With none chosen: the deployment's operators.
    await shows(page, 'Otto Operator', problems);
    const names = () =>
      page.$$eval('tr[data-admin] td:first-child', (cells) => cells.map((cell) => cell.textContent));
    expect(await names()).not.toContain('Sami Second');

    await page.select('#organization-choice', second.id);
    await page.waitForFunction(
      () => document.querySelector('.admins')?.textContent?.includes('Sami Second'),
      { timeout: 15_000 },
    );
    expect(await page.evaluate(() => location.hash)).toBe(`#admins?organization_id=${second.id}`);
    expect(await names()).toEqual(['Sami Second']);
    await expectAccessible(page, 'admins of a chosen organization');

    // A reload keeps the choice; another organization shows its own admins only.
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(
      () => document.querySelector('.admins')?.textContent?.includes('Sami Second'),
      { timeout: 15_000 },
    );
    expect(await page.$eval('#organization-choice', (select) => (select as HTMLSelectElement).value)).toBe(
      second.id,
    );
    await page.waitForSelector(`#organization-choice option[value="${first.id}"]`, { timeout: 15_000 });
    await page.select('#organization-choice', first.id);
    await page.waitForFunction(
      () => document.querySelector('.admins')?.textContent?.includes('Frida First'),
      { timeout: 15_000 },
    );
    expect(await names()).toEqual(['Frida First']);

    // The same chooser on the Services and Keys pages: the navigation keeps the choice (the first organization, which
    // has no directory), another one chosen there shows its directory, and Keys keeps that one.
    await page.locator('nav.sections ::-p-aria(Services)').click();
    await shows(page, 'The organization itself', problems);
    expect(await page.evaluate(() => location.hash)).toBe(`#services?organization_id=${first.id}`);
    expect(
      await page.$$eval('.service-group h2', (titles) => titles.map((title) => title.textContent)),
    ).toEqual(['The organization itself']);
    await page.waitForSelector(`#organization-choice option[value="${second.id}"]`, { timeout: 15_000 });
    await page.select('#organization-choice', second.id);
    await shows(page, `Directory ${directoryName}`, problems);
    expect(await page.evaluate(() => location.hash)).toBe(`#services?organization_id=${second.id}`);
    await page.locator('nav.sections ::-p-aria(Keys)').click();
    await page.waitForSelector(`#key-owner option[value="directories/${directoryId}"]`, { timeout: 15_000 });
    // With none chosen, Keys asks for one.
    await page.waitForSelector('#organization-choice option[value=""]', { timeout: 15_000 });
    await page.select('#organization-choice', '');
    await shows(page, 'Choose an organization first', problems);
    await page.waitForSelector(`#organization-choice option[value="${second.id}"]`, { timeout: 15_000 });
    await page.select('#organization-choice', second.id);
    await page.waitForSelector(`#key-owner option[value="directories/${directoryId}"]`, { timeout: 15_000 });
    await page.select('#key-owner', `organizations/${second.id}`);
    await page.waitForFunction(
      (id) => location.hash === `#keys/organizations/${id}?organization_id=${id}`,
      { timeout: 15_000 },
      second.id,
    );
    await expectAccessible(page, 'keys of a chosen organization');

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);

  it('keeps the operator’s choice from section to section through the navigation', async () => {
    const stamp = Date.now();
    const name = `Kept ${stamp}`;
    const { organization } = await scene.store.organization(name);
    const directoryName = `Kept directory ${stamp}`;
    const directoryId = await scene.store.directory(organization.id, directoryName);
    const { page, problems, cspViolations } = await scene.signedInPage('operator', null, 'Nora Navigator');
    const hash = () => page.evaluate(() => location.hash);
    const chosen = () => page.$eval('#organization-choice', (select) => (select as HTMLSelectElement).value);

    await page.locator('nav.sections ::-p-aria(Keys)').click();
    await chooseOrganization(page, name);
    await page.waitForSelector(`#key-owner option[value="directories/${directoryId}"]`, { timeout: 15_000 });
    expect(await page.$eval('nav.sections a[href^="#services"]', (link) => link.getAttribute('href'))).toBe(
      `#services?organization_id=${organization.id}`,
    );

    // Keys → Services: the same organization, chosen and shown.
    await page.locator('nav.sections ::-p-aria(Services)').click();
    await shows(page, `Directory ${directoryName}`, problems);
    expect(await hash()).toBe(`#services?organization_id=${organization.id}`);
    expect(await chosen()).toBe(organization.id);
    await expectAccessible(page, 'services reached through the navigation');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await expectAccessible(page, 'services reached through the navigation, dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

    // Directories show every organization's and pass the choice on, a directory opened and a reload included.
    await page.locator('nav.sections ::-p-aria(Directories)').click();
    await page.locator(`button[data-directory="${directoryId}"]`).click();
    await page.waitForFunction(
      (id, org) => location.hash === `#directories/${id}?organization_id=${org}`,
      { timeout: 15_000 },
      directoryId,
      organization.id,
    );
    await page.reload({ waitUntil: 'load' });
    await shows(page, directoryName, problems);
    await page.locator('nav.sections ::-p-aria(Audit trail)').click();
    await page.waitForFunction(
      () => document.querySelector('table.audit tbody') !== null && location.hash.startsWith('#audit'),
      { timeout: 15_000 },
    );
    expect(await hash()).toBe(`#audit?organization_id=${organization.id}`);
    expect(await chosen()).toBe(organization.id);

    // Choosing none there is kept too: the next section shows none.
    await page.select('#organization-choice', '');
    await page.waitForFunction(() => !location.hash.includes('organization_id'), { timeout: 15_000 });
    await page.locator('nav.sections ::-p-aria(Services)').click();
    await shows(page, 'Choose an organization to see its services.', problems);
    expect(await hash()).toBe('#services');

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);
});
