import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { chooseOrganization } from './choose-organization.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { screenshot } from '#test/support/browser';
import { consoleClient } from '#test/integration/console/console-client';

/**
 * The console's audit trail and health sections (docs/console.md#pages) in a real Chromium: an owner's change shown
 * with the owner's name, a filter by operation kept in the address, the CSV export, and the push deliveries drawn as
 * SVG beside their table; the operator choosing the organization by name on both; each under WCAG 2.2 AA in light and
 * dark, and under the strict CSP.
 */

let scene: ConsoleScene;
let organizationId: string;

beforeAll(async () => {
  scene = await startConsoleScene();
  organizationId = (await scene.store.organization('Audited')).organization.id;
}, 120_000);
afterAll(() => scene?.close());

describe('the audit trail and health sections', () => {
  it('shows a change with the admin’s name, narrows by operation, exports CSV, and draws the pushes', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('owner', organizationId, 'Olga Owner');
    // The owner makes a directory through the console's API, as the page does (its CSRF token from the session).
    const created = await page.evaluate(async () => {
      const session = (await (await fetch('api/session')).json()) as { csrf_token: string };
      const response = await fetch('api/directories', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ name: 'Made by Olga' }),
      });
      return ((await response.json()) as { id: string }).id;
    });
    // Another admin of the organization changes it: a second operation in the trail, by someone else.
    const client = await consoleClient(scene.runtime);
    const admin = await client.signedIn('admin', organizationId);
    const changed = await client.call('PATCH', `/directories/${created}`, {
      session: admin,
      body: { webhook_url: 'https://hooks.example.com/olga' },
    });
    expect(changed.status).toBe(200);

    await page.evaluate(() => {
      location.hash = '#audit';
    });
    // The header names Olga already: wait for her name in the trail's table itself.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('table.audit tbody tr')].some((row) =>
          row.textContent?.includes('Olga Owner'),
        ),
      { timeout: 15_000 },
    );
    const rows = () =>
      page.$$eval('table.audit tbody tr', (each) => each.map((row) => (row as HTMLElement).innerText));
    const all = await rows();
    expect(
      all.some((row) => row.includes('Olga Owner') && row.includes('POST /console/api/directories')),
    ).toBe(true);
    expect(all.some((row) => row.includes('admin of the test') && row.includes('PATCH'))).toBe(true);
    await expectAccessible(page, 'audit trail');
    await screenshot(page, 'console-audit');

    // A filter by operation narrows the records, and lives in the address (a reload keeps it).
    await page.locator('::-p-aria(Operation)').fill('PATCH /console/api/directories/{id}');
    await click(page, 'Apply filters');
    await page.waitForFunction(() => location.hash.includes('operation='));
    await shows(page, '1 record shown', problems);
    await page.reload({ waitUntil: 'load' });
    await shows(page, '1 record shown', problems);
    const narrowed = await rows();
    expect(narrowed).toHaveLength(1);
    expect(narrowed[0]).toContain('admin of the test');
    expect(narrowed[0]).toContain(created);

    // The CSV export link downloads the same records, with a header row, as an attachment.
    const href = await page.$eval('a.export', (link) => link.href);
    expect(href).toContain('format=csv');
    const exported = await page.evaluate(async (url) => {
      const response = await fetch(url);
      return {
        status: response.status,
        disposition: response.headers.get('content-disposition'),
        text: await response.text(),
      };
    }, href);
    expect(exported.status).toBe(200);
    expect(exported.disposition).toMatch(/^attachment; filename="audit-.*\.csv"$/);
    const lines = exported.text.trim().split('\r\n');
    expect(lines[0]).toContain('"admin_name"');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('PATCH /console/api/directories/{id}');

    // Health: pushes recorded for the organization, drawn as bars, with the same figures in a table.
    const { recordAuthHealth, recordPushHealth } = await import('#shared/store/health-metrics');
    const now = new Date();
    await recordAuthHealth(organizationId, 'answered', 4000, now);
    await recordAuthHealth(organizationId, 'answered', 9000, now);
    await recordAuthHealth(organizationId, 'denied', 2000, now);
    await recordAuthHealth(organizationId, 'expired', undefined, now);
    await recordPushHealth(organizationId, 'webpush', 'sent', 120, now);
    await recordPushHealth(organizationId, 'webpush', 'sent', 80, now);
    await recordPushHealth(organizationId, 'webpush', 'failed', undefined, now);
    await page.evaluate(() => {
      location.hash = '#health/?hours=6';
    });
    await shows(page, 'Push deliveries by provider, last 6 hours', problems);
    const webPush = await page.$eval('#health-totals tbody tr', (row) =>
      [...row.children].map((cell) => (cell as HTMLElement).innerText),
    );
    expect(webPush).toEqual(['Web push', '2', '1', '0', '≤ 200 ms']);
    const outcomes = await page.$$eval('#health-auth-totals tbody tr', (rows) =>
      rows.map((row) => [...row.children].map((cell) => (cell as HTMLElement).innerText)),
    );
    expect(outcomes).toEqual([
      ['Answered (approved or denied)', '2'],
      ['Denied, seen by the service', '1'],
      ['Failed (wrong codes)', '0'],
      ['Expired', '1'],
      ['Cancelled', '0'],
    ]);
    expect(await page.$eval('#health-auth-latency', (line) => (line as HTMLElement).innerText)).toBe(
      "Time to the user's answer: median ≤ 5,000 ms, 95th percentile ≤ 10,000 ms.",
    );
    const chart = await page.$eval('svg.chart[aria-describedby="health-buckets-webpush"]', (svg) => ({
      role: svg.getAttribute('role'),
      label: svg.getAttribute('aria-label'),
      describedBy: document.getElementById(svg.getAttribute('aria-describedby') ?? '')?.tagName,
      bars: svg.querySelectorAll('rect').length,
    }));
    expect(chart).toEqual({
      role: 'img',
      label: expect.stringContaining('the table after it holds the figures'),
      describedBy: 'TABLE',
      bars: 2,
    });
    // One bar per outcome with requests in the bucket, stacked.
    expect(
      await page.$eval(
        'svg.chart[aria-describedby="health-auth-buckets"]',
        (svg) => svg.querySelectorAll('rect').length,
      ),
    ).toBe(3);
    await expectAccessible(page, 'health');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await expectAccessible(page, 'health, dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await screenshot(page, 'console-health');

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
  }, 120_000);

  it('lets the operator choose the organization by name on both pages, keeping the other filters', async () => {
    const stamp = Date.now();
    const client = await consoleClient(scene.runtime);
    // Two organizations, each with a change on its trail and figures of its own.
    const made: Record<'first' | 'second', { id: string; name: string; directory: string }> = {
      first: { id: '', name: `Trail first ${stamp}`, directory: '' },
      second: { id: '', name: `Trail second ${stamp}`, directory: '' },
    };
    for (const each of Object.values(made)) {
      each.id = (await scene.store.organization(each.name)).organization.id;
      const admin = await client.signedIn('admin', each.id);
      const created = await client.call('POST', '/directories', {
        session: admin,
        body: { name: `Directory of ${each.name}` },
      });
      expect(created.status).toBe(201);
      each.directory = created.body?.id as string;
    }
    const { recordAuthHealth } = await import('#shared/store/health-metrics');
    const now = new Date();
    for (let count = 0; count < 3; count += 1) await recordAuthHealth(made.first.id, 'answered', 4000, now);
    await recordAuthHealth(made.second.id, 'expired', undefined, now);

    const { page, problems, cspViolations } = await scene.signedInPage('operator', null, 'Orla Operator');
    const choose = (name: string) => chooseOrganization(page, name);
    const rows = () =>
      page.$$eval('table.audit tbody tr', (each) => each.map((row) => (row as HTMLElement).innerText));

    // No organization chosen: nothing read, a filter set already; choosing keeps it beside the choice.
    await page.evaluate(() => {
      location.hash = '#audit/?outcome=success';
    });
    await shows(page, 'Choose an organization to read its audit trail.', problems);
    expect(await page.$('#audit-organization_id')).toBeNull();
    await choose(made.second.name);
    await page.waitForFunction(() => location.hash.includes('organization_id='), { timeout: 15_000 });
    const address = new URLSearchParams((await page.evaluate(() => location.hash)).split('?')[1]);
    expect(address.get('organization_id')).toBe(made.second.id);
    expect(address.get('outcome')).toBe('success');
    await page.waitForFunction(
      (id) => document.querySelector('table.audit tbody')?.textContent?.includes(id),
      { timeout: 15_000 },
      made.second.directory,
    );
    expect(await page.$eval('#audit-outcome', (select) => (select as HTMLSelectElement).value)).toBe(
      'success',
    );
    const second = await rows();
    expect(
      second.some(
        (row) => row.includes('POST /console/api/directories') && row.includes(made.second.directory),
      ),
    ).toBe(true);
    expect(second.join('\n')).not.toContain(made.first.directory);
    await expectAccessible(page, 'audit trail of a chosen organization');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await expectAccessible(page, 'audit trail of a chosen organization, dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

    // Health from the navigation: the same organization's figures, then the first one chosen by name, the range kept.
    await page.locator('nav.sections ::-p-aria(Health)').click();
    await shows(page, 'Auth requests by outcome, last 24 hours', problems);
    const outcomes = () =>
      page.$$eval('#health-auth-totals tbody tr td', (cells) => cells.map((cell) => cell.textContent));
    expect(await outcomes()).toEqual(['0', '0', '0', '1', '0']);
    await page.select('#health-hours', '6');
    await click(page, 'Show');
    await shows(page, 'Auth requests by outcome, last 6 hours', problems);
    await choose(made.first.name);
    await page.waitForFunction(
      (id) => location.hash.includes(`organization_id=${id}`),
      { timeout: 15_000 },
      made.first.id,
    );
    expect(new URLSearchParams((await page.evaluate(() => location.hash)).split('?')[1]).get('hours')).toBe(
      '6',
    );
    await shows(page, 'Auth requests by outcome, last 6 hours', problems);
    await page.waitForFunction(
      () => document.querySelector('#health-auth-totals tbody td')?.textContent === '3',
      { timeout: 15_000 },
    );
    expect(await outcomes()).toEqual(['3', '0', '0', '0', '0']);
    expect(await page.$eval('#organization-choice', (select) => (select as HTMLSelectElement).value)).toBe(
      made.first.id,
    );
    await expectAccessible(page, 'health of a chosen organization');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await expectAccessible(page, 'health of a chosen organization, dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);
});
