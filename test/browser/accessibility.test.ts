import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, linkFromQr, type PageScene, shows, startPageScene } from './page-scene.ts';
import { denialReasons } from '#test/support/requests';

/** Each screen of the web authenticator against WCAG 2.2 AA (what axe checks), in light and dark mode, and by keyboard. */

let scene: PageScene;

const knowledgeAndInherence = {
  minimum_requirements: [{ requirement: 'authenticated', any: 0, knowledge: 1, inherence: 1, possession: 0 }],
  factors: [],
};

beforeAll(async () => {
  scene = await startPageScene();
}, 120_000);
afterAll(async () => {
  await scene?.close();
});

/** Asks alice, and brings the page to it as a push would. */
async function ask(body: Record<string, unknown>): Promise<string> {
  const created = await scene.scene.ask({ username: 'alice', ...body });
  await scene.page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await scene.page.waitForSelector(`[data-request="${created.auth_request}"]`);
  return created.auth_request;
}

/** What has the keyboard focus: its tag, name and text, enough to say where Tab went. */
const focused = () =>
  scene.page.evaluate(() => {
    const element = document.activeElement;
    return `${element?.tagName.toLowerCase()}${element?.getAttribute('name') ? `[name=${element.getAttribute('name')}]` : ''} ${element?.textContent ?? ''}`.trim();
  });

/** How the focused element's outline is drawn: `none` for a heading focused for screen readers, a line for a control. */
const outline = () =>
  scene.page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);

describe('the web authenticator, for everyone', () => {
  it('meets WCAG 2.2 AA on the first screen and on a linked card, light and dark', async () => {
    await linkFromQr(scene, 'alice', 'Alice’s phone', () => expectAccessible(scene.page, 'link screen'));
    await shows(scene.page, 'No request is waiting.');
    await expectAccessible(scene.page, 'linked card');
    expect(scene.problems).toEqual([]);
  }, 90_000);

  it('reaches Approve and Deny by Tab in order, and Enter activates them', async () => {
    const { page } = scene;
    const approving = await ask({ policy: knowledgeAndInherence, title: 'Sign in to Payroll' });
    await page.focus(`[data-request="${approving}"]`);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('input[name=pin]');
    await page.keyboard.type('2468');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('button Approve');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('button Deny');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-request="${approving}"]`, { hidden: true });
    await shows(page, 'Approved.');

    const denying = await ask({ denial_reasons: denialReasons, title: 'Sign in' });
    await page.focus(`[data-request="${denying}"]`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('button Deny');
    await page.keyboard.press('Enter');
    // The reasons open with their question in focus, drawn without a box, and no reason chosen.
    expect(await focused()).toBe('legend Why do you deny?');
    expect(await outline()).toBe('none');
    expect(await page.$$(`[data-request="${denying}"] input:checked`)).toEqual([]);
    // Tab reaches the reasons, the arrows choose one, and Tab goes on to sending the denial.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe(`input[name=reason-${denying}]`);
    expect(await outline()).toBe('solid');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('button Send denial');
    expect(await outline()).toBe('solid');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-request="${denying}"]`, { hidden: true });
    await shows(page, 'Denied.');
  }, 90_000);

  it('meets WCAG 2.2 AA on a request with a PIN field and denial reasons, light and dark', async () => {
    const { page } = scene;
    const created = await ask({
      policy: knowledgeAndInherence,
      denial_reasons: denialReasons,
      title: 'Sign in to Payroll',
      context: 'Chrome on Windows, Berlin',
    });
    await shows(page, 'your PIN');
    await expectAccessible(page, 'request');
    await click(page, 'Deny');
    await shows(page, 'report as fraud');
    await expectAccessible(page, 'request with denial reasons');
    await click(page, 'Send denial');
    await shows(page, 'Choose a reason, then send the denial.');
    await page.locator(`[data-request="${created}"] label.choice::-p-text(I did not ask for this)`).click();
    await shows(page, 'Reporting fraud tells');
    await expectAccessible(page, 'denial with what reporting fraud does');
    await scene.scene.service.call('DELETE', `/service/v3/auths/${created}`, {
      subject: `svc:${scene.scene.serviceId}`,
    });
  }, 90_000);

  it('meets WCAG 2.2 AA on the sessions list, light and dark', async () => {
    const { page } = scene;
    const created = await ask({ title: 'Sign in' });
    await click(page, 'Approve');
    await page.waitForSelector(`[data-request="${created}"]`, { hidden: true });
    await scene.scene.service.call('POST', '/service/v3/sessions', {
      subject: `svc:${scene.scene.serviceId}`,
      body: { username: 'alice', auth_request: created },
    });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await page.waitForSelector('.session button');
    await expectAccessible(page, 'sessions');
    expect(scene.problems).toEqual([]);
  }, 90_000);
});
