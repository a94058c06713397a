import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { addVirtualAuthenticator, phonePage, screenshot } from '#test/support/browser';

/**
 * The console's users section (docs/console.md#users) in a real Chromium against the local runtime: helpdesk finds a
 * user who lost their phone, unlinks it and starts a new link that a web authenticator in a second page links with;
 * an auditor sees the user and nothing to act with; the audit trail names the helpdesk admin.
 */

let scene: ConsoleScene;
let tenant: AuthScene;
const hostileName = '<img src=x onerror="window.xss=1">';
const identifier = `lost-phone-${randomBytes(4).toString('hex')}`;
const asDirectory = () => ({ subject: `dir:${tenant.directoryId}` });

beforeAll(async () => {
  scene = await startConsoleScene();
  tenant = await newAuthScene(scene.runtime);
}, 120_000);
afterAll(() => scene?.close());

/**
 * A device linked as the application's own app would: the user's first (by default named with markup), or a further
 * one, which waits for the user's linked device to confirm it.
 */
async function linkDevice(who = identifier, name = hostileName): Promise<Authenticator> {
  const started = await tenant.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
    ...asDirectory(),
    body: { identifier: who },
  });
  const state = await linkAuthenticator({
    baseUrl: scene.runtime.baseUrl,
    sdkKey: tenant.sdkKey,
    code: started.body?.code as string,
    name,
  });
  return new Authenticator(state);
}

/** The user's devices as the application lists them with its own key. */
async function signedDeviceList(
  who = identifier,
): Promise<{ id: string; name: string | null; status: number }[]> {
  const listed = await tenant.organization.client.call<{ id: string; name: string | null; status: number }[]>(
    'POST',
    '/directory/v3/devices/list',
    { ...asDirectory(), body: { identifier: who } },
  );
  return listed.body ?? [];
}

async function findUser(page: Page, wanted: string, problems: string[]): Promise<void> {
  await page.locator('::-p-aria(Users)').click();
  await page.waitForSelector(`#user-directory option[value="${tenant.directoryId}"]`, { timeout: 15_000 });
  await page.select('#user-directory', tenant.directoryId);
  await page.locator('#user-identifier').fill(wanted);
  await click(page, 'Find user');
  await page.waitForFunction(() => !document.body.innerText.includes('Looking the user up'), {
    timeout: 15_000,
  });
  expect(problems.filter((each) => !each.includes('status of 404'))).toEqual([]);
}

describe('the console’s users section in a real browser', () => {
  it('lets helpdesk recover a user who lost their phone: unlink it, link a new one, all on the audit trail', async () => {
    const phone = await linkDevice();
    // The phone answered a request before it was lost: helpdesk sees when, and for which service.
    await tenant.ask({ username: identifier });
    const [request] = await phone.pending();
    await phone.answer(request as NonNullable<typeof request>, { approve: true });
    await tenant.organization.client.call('POST', '/directory/v3/totp', {
      ...asDirectory(),
      body: { identifier },
    });
    // The store reads its table's name from the environment the runtime sets up: imported once it is.
    const { lockUser } = await import('#shared/store/push-fatigue');
    await lockUser(tenant.directoryId, identifier, Math.floor(Date.now() / 1000) + 3600);
    const since = new Date(Date.now() - 1000);

    const { page, problems, cspViolations } = await scene.signedInPage(
      'helpdesk',
      tenant.organization.id,
      'Hana Helpdesk',
    );
    const me = (await page.evaluate(() => fetch('api/session').then((answer) => answer.json()))) as {
      admin_id: string;
      name: string;
    };
    expect(me.name).toBe('Hana Helpdesk');
    // The approval step's refusal before the store stood in for the approval (no authenticator linked: 409).
    expect(problems.every((each) => each.includes('status of 409'))).toBe(true);
    problems.length = 0;

    // An identifier the directory does not have says so.
    await findUser(page, 'nobody-by-this-name', problems);
    await shows(page, 'This directory has no user “nobody-by-this-name”', problems);

    await findUser(page, identifier, problems);
    await page.waitForSelector(`tr[data-device="${phone.state.deviceId}"]`, { timeout: 15_000 });
    // The device's name is text, never markup.
    await shows(page, hostileName, problems);
    expect(await page.evaluate(() => document.querySelectorAll('.user img').length)).toBe(0);
    expect(await page.evaluate(() => (window as { xss?: number }).xss)).toBeUndefined();
    await shows(page, 'Linked', problems);
    expect(await page.$eval(`tr[data-device="${phone.state.deviceId}"]`, (row) => row.textContent)).toContain(
      'Approved or denied',
    );
    await shows(page, 'Set up. 0 failed attempts', problems);
    await shows(page, 'Locked until', problems);
    // The address keeps the place: a reload shows the same user.
    expect(await page.evaluate(() => location.hash)).toBe(
      `#users/${tenant.directoryId}/${encodeURIComponent(identifier)}`,
    );
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector(`tr[data-device="${phone.state.deviceId}"]`, { timeout: 15_000 });
    await shows(page, identifier, problems);
    await expectAccessible(page, 'user');
    await screenshot(page, 'console-user');

    // The fraud lock, cleared after a confirmation.
    await click(page, 'Clear the fraud lock');
    await shows(page, `Clear the fraud lock of ${identifier}?`, problems);
    await click(page, 'Clear the lock now');
    await shows(page, 'The fraud lock was cleared.', problems);
    await shows(page, 'Not locked.', problems);

    // The lost phone, unlinked after a confirmation naming it; Cancel first leaves it be.
    await page.locator(`tr[data-device="${phone.state.deviceId}"] button`).click();
    await shows(page, `Unlink “${hostileName}” from ${identifier}?`, problems);
    await expectAccessible(page, 'unlink confirmation');
    await click(page, 'Cancel');
    expect(await page.$('.confirm')).toBeNull();
    await page.locator(`tr[data-device="${phone.state.deviceId}"] button`).click();
    await page.locator('.confirm button.danger').click();
    await shows(page, `“${hostileName}” was unlinked.`, problems);
    await page.waitForFunction(
      (id) => !document.querySelector(`tr[data-device="${id}"]`),
      { timeout: 15_000 },
      phone.state.deviceId,
    );
    await shows(page, 'No devices.', problems);
    expect(await signedDeviceList()).toEqual([]);
    await expect(
      deviceClient(scene.runtime.baseUrl, phone).call('GET', '/device/v3/auths'),
    ).rejects.toMatchObject({
      status: 401,
      errorCode: 'AUTH-002',
    });

    // A new link: its QR image from this service, its address and code, and until when it works.
    await click(page, 'Start a new link');
    const address = await page.waitForSelector('.new-link a.address', { timeout: 15_000 });
    const url = (await address?.evaluate((link) => link.href)) as string;
    expect(url).toMatch(new RegExp(`^${scene.origin}/authenticator/#code=[A-Z2-9]{8}$`));
    await shows(page, `Linking code ${new URL(url).hash.replace('#code=', '')}`, problems);
    await shows(page, 'Works until', problems);
    const image = await page.waitForFunction(
      () => {
        const shown = document.querySelector<HTMLImageElement>('.new-link img');
        return shown?.complete && shown.naturalWidth > 0 && shown.src;
      },
      { timeout: 15_000 },
    );
    expect(new URL((await image.jsonValue()) as string).origin).toBe(scene.origin);
    await shows(page, 'Link pending', problems);
    await expectAccessible(page, 'new link');
    await screenshot(page, 'console-user-relink');

    // The person's new phone: a web authenticator in a second page links from that address.
    const second = await phonePage(scene.browser);
    await addVirtualAuthenticator(second.page);
    await second.page.goto(url, { waitUntil: 'load' });
    await shows(second.page, 'Linking code', second.problems);
    await second.page.locator('::-p-aria(Name this device)').fill('New phone');
    await click(second.page, 'Link this browser');
    await shows(second.page, 'Add a passkey', second.problems);
    await click(second.page, 'Add a passkey');
    await shows(second.page, 'Set a PIN', second.problems);
    await second.page.type('input[autocomplete="new-password"]', '2468');
    await second.page.locator('::-p-aria(PIN again)').fill('2468');
    await click(second.page, 'Set PIN');
    await shows(second.page, 'Get notified', second.problems);
    await click(second.page, 'Continue without notifications');
    await second.page.waitForSelector('section.card', { timeout: 15_000 });
    expect(second.problems).toEqual([]);
    await second.page.close();

    // Back in the console, the user's devices show the new one, linked (and cooling off after the unlink).
    await page.bringToFront();
    await click(page, 'Read again');
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.user-devices tbody tr')].some(
          (row) => row.textContent?.includes('New phone') && row.textContent.includes('Linked'),
        ),
      { timeout: 15_000 },
    );
    await shows(page, 'Cooling off', problems);
    expect((await signedDeviceList()).map((device) => [device.name, device.status])).toEqual([
      ['New phone', 1],
    ]);
    // Helpdesk, who knows the person, lets the new phone answer at once, after a question saying what that means.
    await click(page, 'Let it answer now');
    await shows(page, `Let “New phone” answer for ${identifier} now?`, problems);
    await shows(page, 'you vouch for them', problems);
    await click(page, 'Let “New phone” answer now');
    await shows(page, '“New phone” answers now.', problems);
    await page.waitForFunction(() => !document.body.innerText.includes('Cooling off'), { timeout: 15_000 });

    // The audit trail names the helpdesk admin, their role and session on the unlink.
    const records = await scene.store.consoleRecords(tenant.organization.id, since);
    const unlink = records.find(
      (record) =>
        record.operation === 'DELETE /console/api/directories/{id}/users/{identifier}/devices/{deviceId}' &&
        record.outcome === 'success',
    );
    expect(unlink).toMatchObject({
      actor_id: `console:${me.admin_id}`,
      admin_role: 'helpdesk',
      directory_id: tenant.directoryId,
      user: identifier,
      device_id: phone.state.deviceId,
    });
    expect(unlink?.session_id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(records.map((record) => record.operation)).toEqual(
      expect.arrayContaining([
        'DELETE /console/api/directories/{id}/users/{identifier}/fraud-lock',
        'POST /console/api/directories/{id}/users/{identifier}/links',
      ]),
    );
    expect(
      records.find(
        (record) =>
          record.operation ===
          'POST /console/api/directories/{id}/users/{identifier}/devices/{deviceId}/confirm',
      ),
    ).toMatchObject({ actor_id: `console:${me.admin_id}`, user: identifier, target_id: 'cooling-off-ended' });
    expect(problems.filter((each) => !each.includes('status of 404'))).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 240_000);

  it('lets helpdesk approve a device that waits for the confirmation of a phone the user lost', async () => {
    const who = `new-phone-${randomBytes(4).toString('hex')}`;
    await linkDevice(who, 'Lost phone');
    const waiting = await linkDevice(who, 'Replacement');
    expect(await waiting.linkState()).toMatchObject({ status: 'awaiting-confirmation' });
    const { page, problems, cspViolations } = await scene.signedInPage('helpdesk', tenant.organization.id);
    problems.length = 0;
    await page.goto(`${scene.origin}/console/#users/${tenant.directoryId}/${encodeURIComponent(who)}`, {
      waitUntil: 'load',
    });
    const row = `tr[data-device="${waiting.state.deviceId}"]`;
    await page.waitForSelector(row, { timeout: 15_000 });
    await shows(page, 'Waits for the user’s other device to confirm it', problems);

    await click(page, 'Approve this device');
    await shows(page, `Approve “Replacement” for ${who}?`, problems);
    await shows(
      page,
      `Do this only when you know the person asking is ${who}: you vouch for them.`,
      problems,
    );
    await expectAccessible(page, 'device approval');
    await screenshot(page, 'console-user-approve-device');
    await click(page, 'Approve “Replacement”');
    await shows(page, '“Replacement” is linked.', problems);
    await page.waitForFunction(
      (selector) => {
        const shown = document.querySelector(selector)?.textContent ?? '';
        return shown.includes('Linked') && !shown.includes('Waits for');
      },
      { timeout: 15_000 },
      row,
    );
    expect(await page.$(`${row} button.primary`)).toBeNull();
    expect((await signedDeviceList(who)).find((device) => device.id === waiting.state.deviceId)?.status).toBe(
      1,
    );
    expect(await waiting.linkState()).not.toMatchObject({ status: 'awaiting-confirmation' });
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 180_000);

  it('shows an auditor the user, with nothing to act with', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('auditor', tenant.organization.id);
    await page.goto(
      `${scene.origin}/console/#users/${tenant.directoryId}/${encodeURIComponent(identifier)}`,
      {
        waitUntil: 'load',
      },
    );
    await shows(page, 'New phone', problems);
    await shows(page, 'Set up.', problems);
    const buttons = await page.$$eval('.user button', (all) => all.map((button) => button.textContent));
    expect(buttons).toEqual(['Read again']);
    await expectAccessible(page, 'user, read only');
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);
});
