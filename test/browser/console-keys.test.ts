import { spawn } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { Authenticator } from '#shared/authenticator/authenticator';
import { ApiClient } from '#shared/client/api-client';
import {
  type AuthorizationResponseBody,
  openAuthorizationResponse,
} from '#shared/client/authorization-response';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { screenshot } from '#test/support/browser';
import { rsaKeyPair } from '#test/support/keys';
import { projectRoot } from '#test/support/service-process';
import { refusal } from '#test/support/tree';
import { until } from '#test/support/waiting';

/**
 * The console's keys (docs/console.md#keys) in a real Chromium: an owner generates a service's key pair in the browser
 * and downloads the private key, which no request carries; the project's own client and the Node example client then
 * sign auth requests with it that a linked device approves. Roles without the right to write see the keys only.
 */

let scene: ConsoleScene;
let tenant: AuthScene;
let device: Authenticator;
let downloads: string;

beforeAll(async () => {
  scene = await startConsoleScene();
  tenant = await newAuthScene(scene.runtime);
  device = await tenant.linkDevice('alice');
  downloads = await mkdtemp(join(tmpdir(), 'console-keys-'));
}, 120_000);
afterAll(async () => {
  await scene?.close();
  if (downloads) await rm(downloads, { recursive: true, force: true });
});

const signedIn = (...args: Parameters<ConsoleScene['signedInPage']>) => scene.signedInPage(...args);

/** Every request body the page sends from now on. */
function requestBodies(page: Page): string[] {
  const bodies: string[] = [];
  page.on('request', (request) => {
    const body = request.postData();
    if (body) bodies.push(body);
  });
  return bodies;
}

/** Opens the keys of `owner` (`services/<id>`) as a person does: the navigation, then the chooser. */
async function openKeys(page: Page, owner: string, problems: string[]): Promise<void> {
  // A keys screen already on show is drawn anew on the click: choose in the new one, not the one going away.
  await page.evaluate(() => document.getElementById('key-owner')?.setAttribute('data-leaving', ''));
  await page.locator('nav.sections a::-p-text(Keys)').click();
  await shows(page, 'Whose keys', problems);
  await page.waitForSelector(`#key-owner:not([data-leaving]) option[value="${owner}"]`);
  await page.select('#key-owner', owner);
  // The owner's own panel, not the one the previous choice drew.
  await page.waitForSelector(`.keys[data-owner="${owner}"] h2`);
}

const rowOf = (kid: string) => `tr[data-key="${kid}"]`;

/** Approves the one auth request pending for alice, as she does on her phone. */
async function aliceApproves(): Promise<string> {
  const pending = await until(async () => (await device.pending())[0]);
  device = new Authenticator((await device.answer(pending, { approve: true })).state);
  return pending.auth_request;
}

describe('the console’s keys in a real browser', () => {
  it('generates a service’s key pair in the browser, and the project’s client and the example client sign with it', async () => {
    const { page, problems, cspViolations } = await signedIn('owner', tenant.organization.id, 'Olive Owner');
    const bodies = requestBodies(page);
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });

    await openKeys(page, `services/${tenant.serviceId}`, problems);
    await page.waitForSelector(rowOf(tenant.serviceKey.kid));
    await shows(page, 'Generate a key pair', problems);
    await expectAccessible(page, 'keys');
    await screenshot(page, 'console-keys');

    await click(page, 'Generate a key pair');
    const kidShown = await page.waitForSelector('[data-generated-key]', { timeout: 60_000 });
    const kid = (await kidShown?.evaluate((element) => element.textContent)) as string;
    await shows(page, 'never left it', problems);
    await page.waitForSelector(rowOf(kid));
    await expectAccessible(page, 'key generated');
    await screenshot(page, 'console-key-generated');

    await page.click('a[download]');
    const file = await until(async () =>
      (await readdir(downloads)).find((name) => name.endsWith('.pem') && !name.endsWith('.crdownload')),
    );
    const privatePem = await readFile(join(downloads, file), 'utf8');
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(createPrivateKey(privatePem).asymmetricKeyDetails?.modulusLength).toBe(4096);
    // The link's object URL is revoked once used: the key is not left reachable in the page.
    await page.waitForFunction(() => !document.querySelector('a[download]')?.hasAttribute('href'));

    // Only the public half ever left the browser.
    const secretLine = privatePem.split('\n')[1] as string;
    expect(bodies.some((body) => body.includes('PUBLIC KEY'))).toBe(true);
    expect(bodies.filter((body) => body.includes('PRIVATE KEY') || body.includes(secretLine))).toEqual([]);

    // The scene's own key goes, after a confirmation: from now on the console's key is the service's only one.
    await page.locator(`${rowOf(tenant.serviceKey.kid)} button::-p-text(Remove)`).click();
    await shows(page, 'Requests signed with this key will be refused at once.', problems);
    await page.locator(`${rowOf(tenant.serviceKey.kid)} button::-p-text(Remove this key)`).click();
    await page.waitForFunction((row) => !document.querySelector(row), {}, rowOf(tenant.serviceKey.kid));
    expect((await refusal(tenant.ask({ username: 'alice' }))).status).toBe(401);

    // (a) The project's own client, signing as the service with the downloaded key, the kid the console showed.
    const application = new ApiClient({
      baseUrl: scene.runtime.baseUrl,
      issuer: `svc:${tenant.serviceId}`,
      privateKeyPem: privatePem,
    });
    expect(application.kid).toBe(kid);
    const created = await application.call<{ auth_request: string }>('POST', '/service/v3/auths', {
      body: { username: 'alice' },
    });
    expect(created.status).toBe(201);
    const authRequest = created.body?.auth_request as string;
    expect(await aliceApproves()).toBe(authRequest);
    const answered = await application.call<AuthorizationResponseBody>(
      'GET',
      `/service/v3/auths/${authRequest}`,
    );
    expect(answered.status).toBe(200);
    const opened = await openAuthorizationResponse(
      answered.body as AuthorizationResponseBody,
      new Map([[kid, createPrivateKey(privatePem)]]),
    );
    expect(opened).toMatchObject({ auth_request: authRequest, authorized: true, type: 'AUTHORIZED' });

    // (b) The example client, run as its README says, with the same key file.
    const example = spawn(
      process.execPath,
      [
        'examples/node/client.mjs',
        scene.runtime.baseUrl,
        `svc:${tenant.serviceId}`,
        join(downloads, file),
        'auth',
        'alice',
        '--context',
        'Sign in with the console’s key',
      ],
      { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    example.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    example.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => example.once('close', resolve));
    const asked = await aliceApproves();
    expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`auth request ${asked}: waiting for alice to answer`);
    expect(JSON.parse(stdout.slice(stdout.indexOf('\n') + 1))).toMatchObject({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      auth_request: asked,
    });

    expect(bodies.filter((body) => body.includes('PRIVATE KEY'))).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  it('shows an auditor the keys without a way to add, generate or remove one', async () => {
    const { page, problems, cspViolations } = await signedIn('auditor', tenant.organization.id);
    await openKeys(page, `services/${tenant.serviceId}`, problems);
    await page.waitForSelector('.keys tbody tr');
    await shows(page, 'Your role may see these keys but not add, change or remove them.', problems);
    expect(await page.$$eval('.keys button, .keys textarea, .keys input', (found) => found.length)).toBe(0);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain('Generate a key pair');
    await expectAccessible(page, 'keys, read only');
    expect(cspViolations).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  it('lets an admin add, deactivate, expire and remove a service’s pasted key, and shows the organization’s keys read-only', async () => {
    const { page, problems, cspViolations } = await signedIn('admin', tenant.organization.id);
    await openKeys(page, `organizations/${tenant.organization.id}`, problems);
    await page.waitForSelector('.keys tbody tr');
    await shows(page, 'Your role may see these keys but not add, change or remove them.', problems);
    expect(await page.$$eval('.keys button, .keys textarea', (found) => found.length)).toBe(0);

    await openKeys(page, `services/${tenant.serviceId}`, problems);
    const pasted = rsaKeyPair();
    await page.locator('::-p-aria(Public key (PEM))').fill(pasted.publicPem);
    await click(page, 'Add public key');
    await shows(page, `Key ${pasted.kid} added.`, problems);
    const row = rowOf(pasted.kid);
    await page.waitForSelector(row);

    await page.locator(`${row} button::-p-text(Deactivate)`).click();
    await page.waitForSelector(`${row} button::-p-text(Activate)`);
    await shows(page, 'Inactive', problems);
    await page.$eval(`${row} input[type="date"]`, (input) => {
      input.value = '2031-01-31';
    });
    await page.locator(`${row} button::-p-text(Set expiry)`).click();
    await shows(page, '2031-01-31 00:00 UTC', problems);
    const listed = await tenant.organization.client.call<
      { id: string; active: boolean; date_expires: string }[]
    >('POST', '/directory/v3/service/keys/list', {
      subject: `dir:${tenant.directoryId}`,
      body: { service_id: tenant.serviceId },
    });
    expect(listed.body?.find((key) => key.id === pasted.kid)).toMatchObject({
      active: false,
      date_expires: '2031-01-31T00:00:00Z',
    });

    await page.locator(`${row} button::-p-text(Remove)`).click();
    await page.locator(`${row} button::-p-text(Remove this key)`).click();
    await page.waitForFunction((selector) => !document.querySelector(selector), {}, row);
    expect(cspViolations).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
