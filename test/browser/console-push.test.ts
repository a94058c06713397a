import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { apnsFixture, testTokenKey } from '#test/support/apns-server';
import { screenshot } from '#test/support/browser';
import { makeServiceAccount } from '#test/support/service-account';

/**
 * The Push block of a directory's page (docs/console.md#push-credentials) in a real Chromium against the local
 * runtime: an owner uploads the password-free .p12 and the FCM service-account file, read as files by the page and
 * shown by what they push to; the operator sets the APNs token key, the rate limit and the fraud lock; an auditor
 * sees the status with no controls; the screens pass WCAG 2.2 AA in light and dark.
 */

let scene: ConsoleScene;
let origin: string;
let organizationId: string;
let directoryId: string;
const files = mkdtempSync(join(tmpdir(), 'console-push-'));
const account = makeServiceAccount('console-push');
const p12File = join(files, 'push.p12');
const accountFile = join(files, 'service-account.json');
const keyFile = join(files, `AuthKey_${testTokenKey.keyId}.p8`);

beforeAll(async () => {
  scene = await startConsoleScene();
  ({ origin } = scene);
  organizationId = (await scene.store.organization('Console push')).organization.id;
  directoryId = await scene.store.directory(organizationId, `Field team ${Date.now()}`);
  writeFileSync(p12File, Buffer.from(apnsFixture('push.p12.base64').trim(), 'base64'));
  writeFileSync(accountFile, account.json);
  writeFileSync(keyFile, testTokenKey.keyPem);
}, 120_000);
afterAll(() => scene?.close());

const readPush = (page: Page) =>
  page.evaluate(async (id) => {
    const response = await fetch(`/console/api/directories/${id}/push`);
    return (await response.json()) as Record<string, unknown>;
  }, directoryId);

const upload = async (page: Page, accept: string, path: string) => {
  const input = await page.waitForSelector(`input[type=file][accept^="${accept}"]`);
  await input?.uploadFile(path);
};

const openDirectory = async (page: Page, problems: readonly string[]) => {
  await page.goto(`${origin}/console/#directories/${directoryId}`, { waitUntil: 'load' });
  await shows(page, 'APNs pushes use', problems);
};

describe('push credentials on a directory’s page', () => {
  it('lets an owner upload the .p12 and the FCM file, shown by what they push to', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('owner', organizationId);
    await openDirectory(page, problems);
    await shows(page, 'without a password', problems);
    expect(await page.$('input[type=file][accept=".p8"]')).toBeNull();

    await upload(page, '.p12', p12File);
    await click(page, 'Upload APNs certificate');
    await shows(page, 'topic com.example.authenticator', problems);
    await upload(page, '.json', accountFile);
    await click(page, 'Upload FCM service account');
    await shows(page, `project console-push, ${account.file.client_email}`, problems);

    const stored = await readPush(page);
    expect(stored).toMatchObject({
      apns_certificate: 'topic com.example.authenticator',
      fcm: `project console-push, ${account.file.client_email}`,
    });
    await expectAccessible(page, 'directory push credentials');
    await screenshot(page, 'console-push');

    // Removing asks first, then reads the status anew.
    await click(page, 'Remove FCM service account');
    await shows(page, 'Pushes to Android devices stop.', problems);
    await click(page, 'Remove the FCM service account');
    await shows(page, 'The FCM service account was removed.', problems);
    expect(await readPush(page)).toMatchObject({
      apns_certificate: 'topic com.example.authenticator',
      fcm: 'none',
    });
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('lets the operator set the APNs token key, the rate limit and the fraud lock', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('operator', null);
    await openDirectory(page, problems);
    await upload(page, '.p8', keyFile);
    await page.locator('::-p-aria(Key id)').fill(testTokenKey.keyId);
    await page.locator('::-p-aria(Team id)').fill(testTokenKey.teamId);
    await page.locator('::-p-aria(Bundle id)').fill(testTokenKey.topic);
    await click(page, 'Save token key');
    await shows(page, `key ${testTokenKey.keyId}, team ${testTokenKey.teamId}`, problems);

    await page.locator('::-p-aria(Auth requests per user)').fill('12');
    await page.locator('::-p-aria(In seconds)').fill('900');
    await page.locator('::-p-aria(Fraud lock in seconds)').fill('3600');
    await click(page, 'Save limits');
    await shows(page, '12 auth requests per user in 900 seconds', problems);
    expect(await readPush(page)).toMatchObject({
      apns_uses: 'token key',
      rate_limit: { count: 12, window_seconds: 900 },
      fraud_lock_seconds: 3600,
    });
    await expectAccessible(page, 'directory push, operator');
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('shows an auditor the status with no controls', async () => {
    const { page, problems, cspViolations } = await scene.signedInPage('auditor', organizationId);
    await openDirectory(page, problems);
    await shows(page, '12 auth requests per user in 900 seconds', problems);
    expect(await page.$$('input[type=file]')).toHaveLength(0);
    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});
