import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { screenshot } from '#test/support/browser';

/**
 * The console's directory and service pages (docs/console.md#pages) in a real Chromium against the local runtime: an
 * admin creates a directory, turns it on, sets its webhook and an SDK key, creates a service and gives it a policy
 * whose summary shows; each change read back through the API; an auditor sees the same with no controls, and a
 * forged change is refused; names are text; the screens pass WCAG 2.2 AA in light and dark.
 */

let scene: ConsoleScene;
let origin: string;
let organizationId: string;
let directoryId: string;
let serviceId: string;
const hostile = '<img src=x onerror="window.xss=1">';
const directoryName = `Field team ${hostile}`;
const serviceName = `Payroll ${hostile} ${Date.now()}`;

beforeAll(async () => {
  scene = await startConsoleScene();
  ({ origin } = scene);
  organizationId = (await scene.store.organization('Console services')).organization.id;
}, 120_000);
afterAll(() => scene?.close());

/** What the console's API answers the signed-in page for `path`: the stored state, not what the page drew. */
const readBack = <T>(page: Page, path: string) =>
  page.evaluate(async (wanted) => {
    const response = await fetch(`/console/api/${wanted}`);
    return { status: response.status, body: await response.json() };
  }, path) as Promise<{ status: number; body: T }>;

/** Types into the input a label names; a name a term of a details list shares is given as a CSS selector. */
const fill = (page: Page, label: string, text: string) =>
  page.locator(label.startsWith('input') ? label : `::-p-aria(${label})`).fill(text);

const buttons = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('button')].map((button) => button.textContent ?? ''));

/** 4xx answers the browser logs itself when the service refuses what the test made it send. */
const besidesRefusals = (problems: readonly string[]) =>
  problems.filter((each) => !/status of 4\d\d/.test(each));

describe('the console’s directory and service pages', () => {
  it('lets an admin create a directory, turn it on, set its webhook and an SDK key, and a service with a policy', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('admin', organizationId, 'Adam Admin');
    await page.goto(`${origin}/console/#directories`, { waitUntil: 'load' });
    await shows(page, 'New directory', problems);

    await click(page, 'Create directory');
    await shows(page, 'Enter a directory name.', problems);
    await fill(page, 'Directory name', directoryName);
    await click(page, 'Create directory');
    await page.waitForFunction(
      (name) => document.querySelector('#directory-details h2')?.textContent === name,
      { timeout: 15_000 },
      directoryName,
    );
    directoryId = decodeURIComponent((await page.evaluate(() => location.hash)).replace('#directories/', ''));
    expect((await readBack<{ name: string }>(page, `directories/${directoryId}`)).body.name).toBe(
      directoryName,
    );

    // Turned off and on again, each read back from the service.
    await click(page, 'Deactivate directory');
    await page.locator('button::-p-text(Activate directory)').wait();
    expect((await readBack<{ active: boolean }>(page, `directories/${directoryId}`)).body.active).toBe(false);
    await click(page, 'Activate directory');
    await page.locator('button::-p-text(Deactivate directory)').wait();
    expect((await readBack<{ active: boolean }>(page, `directories/${directoryId}`)).body.active).toBe(true);

    await fill(page, 'input[name=webhook_url]', 'hooks.example.com');
    await click(page, 'Save webhook URL');
    await shows(page, 'The webhook URL must be a full address', problems);
    await fill(page, 'input[name=webhook_url]', 'https://hooks.example.com/field');
    await click(page, 'Save webhook URL');
    // The Clear button is on the page, hidden, while there is no webhook URL: it shows once the service stored one.
    await page.waitForSelector('button::-p-text(Clear webhook URL)', { visible: true });
    expect(
      (await readBack<{ webhook_url: string }>(page, `directories/${directoryId}`)).body.webhook_url,
    ).toBe('https://hooks.example.com/field');

    await click(page, 'Generate an SDK key');
    await shows(page, 'New SDK key', problems);
    const sdkKey = await page.$eval('#directory-details .generated code', (code) => code.textContent);
    expect(
      (await readBack<{ sdk_keys: string[] }>(page, `directories/${directoryId}/sdk-keys`)).body.sdk_keys,
    ).toEqual([sdkKey]);
    await expectAccessible(page, 'directory with its changes');

    // A service of the new directory, its fields checked on the page first.
    await page.locator('nav a::-p-text(Services)').click();
    await shows(page, 'New service', problems);
    await fill(page, 'Service name', serviceName);
    await fill(page, 'Icon URL', 'icon.png');
    await click(page, 'Create service');
    await shows(page, 'The icon URL must be a full address', problems);
    await fill(page, 'Icon URL', '');
    await fill(page, 'Callback URL', 'https://app.example.com/callback');
    await click(page, 'Create service');
    await page.waitForFunction(
      (name) => document.querySelector('#service-details h2')?.textContent === name,
      { timeout: 15_000 },
      serviceName,
    );
    serviceId = decodeURIComponent((await page.evaluate(() => location.hash)).replace('#services/', ''));
    const stored = await readBack<{ name: string; directory_id: string; callback_url: string }>(
      page,
      `services/${serviceId}`,
    );
    expect(stored.body).toMatchObject({
      name: serviceName,
      directory_id: directoryId,
      callback_url: 'https://app.example.com/callback',
    });

    // The policy: two methods inside a circle, each input checked on the page before anything is sent.
    await fill(page, 'Number of methods', '9');
    await click(page, 'Save policy');
    await shows(page, 'The number of methods must be a whole number from 0 to 5.', problems);
    await fill(page, 'Number of methods', '2');
    await fill(page, 'Circle name', 'Office');
    await fill(page, 'Latitude', '95');
    await fill(page, 'Longitude', '-115.17');
    await fill(page, 'Radius in metres', '500');
    await click(page, 'Add circle');
    await shows(page, 'The latitude must be a number from −90 to 90.', problems);
    await fill(page, 'Latitude', '36.12');
    await click(page, 'Add circle');
    await shows(page, '“Office”: 500 m around 36.12, -115.17', problems);
    await click(page, 'Save policy');
    await shows(page, 'Policy saved.', problems);
    const summary = 'At least 2 methods; inside “Office”: 500 m around 36.12, -115.17.';
    expect(await page.$eval('#policy-summary', (element) => element.textContent)).toBe(summary);
    const policy = await readBack<{ policy: Record<string, unknown>; summary: string }>(
      page,
      `services/${serviceId}/policy`,
    );
    expect(policy.body).toEqual({
      summary,
      policy: {
        type: 'METHOD_AMOUNT',
        amount: 2,
        fences: [{ type: 'GEO_CIRCLE', name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 }],
        deny_rooted_jailbroken: false,
        deny_emulator_simulator: false,
      },
    });
    await expectAccessible(page, 'policy editor');
    await page.$eval('#policy-heading', (heading) => heading.scrollIntoView());
    await screenshot(page, 'console-policy');

    // A reload keeps the place: the same service, its summary from the service.
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('#policy-summary');
    expect(await page.evaluate(() => location.hash)).toBe(`#services/${serviceId}`);
    expect(await page.$eval('#service-details h2', (heading) => heading.textContent)).toBe(serviceName);
    expect(await page.$eval('#policy-summary', (element) => element.textContent)).toBe(summary);

    // The service's own refusal shows too: a name another service holds.
    await page.locator('a::-p-text(All services)').click();
    await shows(page, serviceName, problems);
    await expectAccessible(page, 'services');
    await screenshot(page, 'console-services');
    await fill(page, 'Service name', serviceName);
    await click(page, 'Create service');
    await shows(page, 'The service refused:', problems);
    expect(await page.evaluate(() => location.hash)).toBe('#services');

    // Names are text: shown as typed, nothing they say ran.
    expect(await page.evaluate(() => document.querySelectorAll('#app img').length)).toBe(0);
    expect(await page.evaluate(() => (window as { xss?: number }).xss)).toBeUndefined();
    expect(cspViolations).toEqual([]);
    expect(besidesRefusals(problems)).toEqual([]);
    await page.close();
  }, 180_000);

  it('shows an auditor the same directory and service with no controls, and refuses a forged change', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage(
      'auditor',
      organizationId,
      'Ada Auditor',
    );
    await page.goto(`${origin}/console/#directories/${directoryId}`, { waitUntil: 'load' });
    await page.waitForFunction(
      (name) => document.querySelector('#directory-details h2')?.textContent === name,
      { timeout: 15_000 },
      directoryName,
    );
    await shows(page, 'https://hooks.example.com/field', problems);
    await shows(page, serviceName, problems);
    expect(await buttons(page)).not.toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Create|Deactivate|Activate|Save|Clear|Generate|Remove/),
      ]),
    );

    await page.$eval('#directory-details a[href^="#services/"]', (link) => (link as HTMLElement).click());
    await page.waitForSelector('#policy-summary');
    expect(await page.evaluate(() => location.hash)).toBe(`#services/${serviceId}`);
    await shows(page, 'At least 2 methods; inside “Office”: 500 m around 36.12, -115.17.', problems);
    expect(await page.$('form')).toBeNull();
    expect(await buttons(page)).toEqual(['Sign out']);

    const forged = await page.evaluate(async (id) => {
      const session = (await (await fetch('/console/api/session')).json()) as { csrf_token: string };
      const response = await fetch(`/console/api/services/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ name: 'Forged' }),
      });
      return { status: response.status, body: await response.json() };
    }, serviceId);
    expect(forged).toMatchObject({ status: 403, body: { error_code: 'CON-003' } });
    expect((await readBack<{ name: string }>(page, `services/${serviceId}`)).body.name).toBe(serviceName);
    await expectAccessible(page, 'service, read only');

    await page.locator('nav a::-p-text(Services)').click();
    await shows(page, serviceName, problems);
    expect(await buttons(page)).toEqual(['Sign out']);
    expect(cspViolations).toEqual([]);
    expect(besidesRefusals(problems)).toEqual([]);
    await page.close();
  }, 180_000);
});
