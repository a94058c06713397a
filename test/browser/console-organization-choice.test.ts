import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';

/**
 * The operator's organization chooser (docs/console.md#the-operators-organization-chooser) in a real Chromium: the
 * operator picks an organization on the Admins page and sees its admins, the choice kept across a reload; the list
 * the chooser reads is the operator's alone.
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

    // The same chooser on the Services and Keys pages: nothing until an organization is chosen, then its directory.
    await page.locator('nav.sections ::-p-aria(Services)').click();
    await shows(page, 'Choose an organization to see its services.', problems);
    await page.waitForSelector(`#organization-choice option[value="${second.id}"]`, { timeout: 15_000 });
    await page.select('#organization-choice', second.id);
    await shows(page, `Directory ${directoryName}`, problems);
    await shows(page, 'The organization itself', problems);
    expect(await page.evaluate(() => location.hash)).toBe(`#services?organization_id=${second.id}`);
    await page.locator('nav.sections ::-p-aria(Keys)').click();
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
  });
});
