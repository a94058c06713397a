import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthScene, directoryName } from '#test/support/auth-scene';
import { deliverPush, screenshot, setLocation, type VirtualAuthenticator } from '#test/support/browser';
import { type PushReceiver, startPushReceiver } from '#test/support/push-receiver';
import { denialReasons } from '#test/support/requests';
import { quickPushWorker } from '#test/support/push-scene';
import type { TestRuntime } from '#test/support/runtime';
import type { WebhookReceiver } from '#test/support/webhook-receiver';
import { serviceWebhooks } from '#test/support/service-webhooks';
import { click as clickOn, type PageScene, shows as showsOn, startPageScene } from './page-scene.ts';

/** The web authenticator's screens in a real headless Chromium, against the local runtime. */

let pageScene: PageScene;
let runtime: TestRuntime;
let scene: AuthScene;
let page: Page;
let problems: string[];
let passkey: VirtualAuthenticator;
let pushes: PushReceiver;
let webhooks: WebhookReceiver;
/** The runtime as a phone's browser reaches it on this machine: `localhost`, a secure context and the RP id. */
let origin: string;

const knowledgeAndInherence = {
  minimum_requirements: [{ requirement: 'authenticated', any: 0, knowledge: 1, inherence: 1, possession: 0 }],
  factors: [],
};

beforeAll(async () => {
  Object.assign(process.env, {
    ...quickPushWorker,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
  });
  pageScene = await startPageScene();
  ({ runtime, scene, page, problems, passkey, origin } = pageScene);
  pushes = await startPushReceiver();
  webhooks = await serviceWebhooks(runtime, scene);
  // A headless browser reaches no push service: the subscription is the loopback receiver's, as a real one would be.
  const subscription = pushes.subscribe('phone').json;
  await page.evaluateOnNewDocument((json) => {
    const made = () => ({ endpoint: json.endpoint, toJSON: () => json });
    PushManager.prototype.subscribe = function subscribe() {
      localStorage.setItem('test-subscribed', '1');
      return Promise.resolve(made() as unknown as PushSubscription);
    };
    PushManager.prototype.getSubscription = function getSubscription() {
      return Promise.resolve(
        localStorage.getItem('test-subscribed') ? (made() as unknown as PushSubscription) : null,
      );
    };
  }, subscription);
}, 120_000);
afterAll(async () => {
  await webhooks?.close();
  await pushes?.close();
  await pageScene?.close();
});

const click = (text: string) => clickOn(page, text);
const shows = (text: string) => showsOn(page, text, problems);

/** The office in the service's policy: 500 m around a point in Las Vegas. */
const office = { name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 };
const geofenced = {
  minimum_requirements: [],
  factors: [
    {
      factor: 'geofence',
      requirement: 'forced requirement',
      priority: 1,
      attributes: { locations: [office] },
    },
  ],
};

/** Waits for the answer to leave the list, then for the outcome it left on the card: never an earlier one's words. */
async function outcome(authRequest: string, text: string): Promise<void> {
  await page.waitForSelector(`[data-request="${authRequest}"]`, { hidden: true });
  await shows(text);
}

/**
 * Forgets the failed loads the browser logs for answers a test expects the service to refuse, and only those: any
 * other problem stays for the last check.
 */
function expectRefusedLoads(status: number): void {
  const expected = `the server responded with a status of ${status}`;
  expect(problems).toContainEqual(expect.stringContaining(expected));
  problems.splice(0, problems.length, ...problems.filter((problem) => !problem.includes(expected)));
}

async function qrCode(identifier: string): Promise<string> {
  const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
    subject: `dir:${scene.directoryId}`,
    body: { identifier },
  });
  return started.body?.code as string;
}

/** Asks alice, and brings the page to it as a push would. */
async function ask(
  body: Record<string, unknown>,
): Promise<{ auth_request: string; number_match_code?: string }> {
  const created = await scene.ask({ username: 'alice', ...body });
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await page.waitForSelector(`[data-request="${created.auth_request}"]`);
  return created;
}

/** The denial reasons chosen on a request's card: none until the person chooses. */
const chosenReasons = (authRequest: string) =>
  page.$$eval(`[data-request="${authRequest}"] input[type="radio"]:checked`, (inputs) =>
    inputs.map((input) => input.value),
  );

/** Chooses a denial reason as a person does, by tapping its words. */
const choose = (authRequest: string, reason: string) =>
  page.locator(`[data-request="${authRequest}"] label.choice::-p-text(${reason})`).click();

async function answerOf(authRequest: string) {
  const read = await scene.read(authRequest);
  return read.status === 200 && read.body ? scene.open(read.body) : undefined;
}

describe('the web authenticator', () => {
  it('links from the QR URL: device key, passkey, PIN and Web Push', async () => {
    const code = await qrCode('alice');
    await page.goto(`${origin}/authenticator/#code=${code}`, { waitUntil: 'load' });
    await shows(`Linking code ${code}`);
    await screenshot(page, 'link');
    await click('Link this browser');
    await shows('Add a passkey');
    await screenshot(page, 'passkey');
    await click('Add a passkey');
    await shows('Set a PIN');
    expect(await passkey.credentials()).toHaveLength(1);
    await page.type('input[autocomplete="new-password"]', '2468');
    await page.locator('::-p-aria(PIN again)').fill('2468');
    await screenshot(page, 'pin');
    await click('Set PIN');
    await shows('Get notified');
    await click('Turn on notifications');
    await shows('No request is waiting.');
    // The card names whom the browser answers for as people know them, never by an id.
    await shows(`For ${await directoryName(scene)} at ${scene.organization.name}`);
    const card = await page.$eval('section.card', (element) => element.innerText);
    expect(card).not.toContain(scene.directoryId.slice(0, 8));
    expect(card).not.toMatch(/directory [0-9a-f]{8}/);
    await screenshot(page, 'linked');
    // The warning that the browser may delete the keys comes after what needs an answer, and stays away once dismissed.
    await page.waitForSelector('.storage-note');
    expect(
      await page.evaluate(() => {
        const cards = document.querySelector('.cards');
        const note = document.querySelector('.storage-note');
        return Boolean(
          cards && note && cards.compareDocumentPosition(note) & Node.DOCUMENT_POSITION_FOLLOWING,
        );
      }),
    ).toBe(true);
    await click('Dismiss');
    await page.waitForSelector('.storage-note', { hidden: true });
    await page.reload({ waitUntil: 'load' });
    await shows('No request is waiting.');
    expect(await page.$('.storage-note')).toBeNull();
    // The page registered the subscription: the service's push for a request reaches it.
    const created = await scene.ask({ username: 'alice', title: 'Sign in', push_title: 'Approve?' });
    const push = await pushes.waitFor((each) => each.payload.auth_request === created.auth_request);
    await deliverPush(page, origin, push.payload);
    await page.waitForSelector(`[data-request="${created.auth_request}"]`);
    await screenshot(page, 'pushed');
    // A request without denial reasons is denied at once.
    await click('Deny');
    await outcome(created.auth_request, 'Denied.');
    expect(await answerOf(created.auth_request)).toMatchObject({ type: 'DENIED', reason: 'DISAPPROVED' });
    expect(problems).toEqual([]);
  }, 60_000);

  it('approves a request that needs inherence and knowledge with the passkey and the PIN', async () => {
    const created = await ask({
      policy: knowledgeAndInherence,
      title: 'Sign in to Payroll',
      context: 'Chrome on Windows, Berlin',
    });
    await shows('your PIN');
    // A service without an icon shows its initial: no drawn mark that could read as an answer already given.
    const mark = await page.$eval(`[data-request="${created.auth_request}"] header`, (header) => ({
      initial: header.querySelector('.service-mark')?.textContent,
      name: header.querySelector('h3')?.textContent,
      images: header.querySelectorAll('img').length,
    }));
    expect(mark.initial).toBe(mark.name?.charAt(0).toUpperCase());
    expect(mark.images).toBe(0);
    await screenshot(page, 'request');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await screenshot(page, 'request-dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    await page.type('input[name="pin"]', '2468');
    await click('Approve');
    await outcome(created.auth_request, 'Approved.');
    await screenshot(page, 'approved');
    const answer = await answerOf(created.auth_request);
    expect(answer).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
    const passed = answer?.auth_methods?.filter((method) => method.passed === true).map((m) => m.method);
    expect(passed).toEqual(expect.arrayContaining(['pin_code', 'fingerprint']));
  }, 60_000);

  it('is refused without user verification, and the request stays pending', async () => {
    const created = await ask({ policy: knowledgeAndInherence, title: 'Sign in' });
    await passkey.setUserVerified(false);
    await page.type('input[name="pin"]', '2468');
    await click('Approve');
    await page.waitForSelector(`[data-request="${created.auth_request}"] [role="alert"]`);
    await shows('The passkey prompt was cancelled or timed out. Nothing was sent.');
    await screenshot(page, 'refused');
    await passkey.setUserVerified(true);
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
      subject: `svc:${scene.serviceId}`,
    });
  }, 60_000);

  it('denies as fraud: the poll and the webhook carry FRAUDULENT', async () => {
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    const created = await ask({ denial_reasons: denialReasons, title: 'Sign in' });
    await click('Deny');
    await shows('report as fraud');
    // Nothing is chosen for the person, least of all fraud, which the service lists first here.
    expect(denialReasons[0]?.fraud).toBe(true);
    expect(await chosenReasons(created.auth_request)).toEqual([]);
    expect(await page.$eval('.fraud-explained', (element) => (element as HTMLElement).hidden)).toBe(true);
    // Sending without a reason sends nothing and says what is missing.
    await click('Send denial');
    await page.waitForSelector(`[data-request="${created.auth_request}"] .reasons [role="alert"]`);
    await shows('Choose a reason, then send the denial.');
    expect((await scene.read(created.auth_request)).status).toBe(204);
    // Choosing fraud says what reporting it does, before it is sent.
    await choose(created.auth_request, 'I did not ask for this');
    expect(await chosenReasons(created.auth_request)).toEqual(['NOTME']);
    await shows('Reporting fraud tells');
    await shows('may then refuse new sign-in requests for a while');
    await page.$eval('.fraud-explained', (element) => element.scrollIntoView({ block: 'center' }));
    await screenshot(page, 'deny');
    await click('Send denial');
    await outcome(created.auth_request, 'reported as fraud');
    const poll = await scene.read(created.auth_request);
    expect(poll.status).toBe(200);
    const polled = await scene.open(poll.body as NonNullable<typeof poll.body>);
    expect(polled).toMatchObject({ type: 'DENIED', reason: 'FRAUDULENT', denial_reason: 'NOTME' });
    const webhook = await webhooks.waitFor((each) => each.body.auth_jwe === poll.body?.auth_jwe);
    const { type, ...hooked } = webhook.body;
    expect(type).toBe('AUTHORIZATION_RESPONSE');
    expect(await scene.open(hooked as unknown as NonNullable<typeof poll.body>)).toMatchObject({
      auth_request: created.auth_request,
      reason: 'FRAUDULENT',
    });
  }, 60_000);

  it('takes the code the application shows for number matching, and refuses a wrong one', async () => {
    const created = await ask({ number_matching: true, title: 'Sign in' });
    const code = created.number_match_code as string;
    const wrong = String((Number(code) + 1) % 1000).padStart(code.length, '0');
    const codeField = `[data-request="${created.auth_request}"] input[name="number-match"]`;
    await page.type(codeField, wrong);
    await screenshot(page, 'number-match');
    await click('Approve');
    await shows('That code does not match the one the application shows. 2 tries left.');
    await screenshot(page, 'number-match-wrong');
    expectRefusedLoads(400);
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await page.locator(codeField).fill(code);
    await click('Approve');
    await outcome(created.auth_request, 'Approved.');
    expect(await answerOf(created.auth_request)).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
  }, 60_000);

  it('denies a number-matching request as fraud without the code, which only Approve asks for', async () => {
    const created = await ask({ number_matching: true, denial_reasons: denialReasons, title: 'Sign in' });
    const codeField = `[data-request="${created.auth_request}"] input[name="number-match"]`;
    await page.waitForSelector(codeField);
    await click('Approve');
    await shows('Type the code the application shows (digits only).');
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await click('Deny');
    await shows('report as fraud');
    expect(await chosenReasons(created.auth_request)).toEqual([]);
    await click('Send denial');
    await shows('Choose a reason, then send the denial.');
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await choose(created.auth_request, 'I did not ask for this');
    await shows('Reporting fraud tells');
    await click('Send denial');
    await outcome(created.auth_request, 'reported as fraud');
    expect(await answerOf(created.auth_request)).toMatchObject({
      type: 'DENIED',
      reason: 'FRAUDULENT',
      denial_reason: 'NOTME',
      authorized: false,
    });
  }, 60_000);

  it('says a request the service cancelled has nothing to answer', async () => {
    const created = await ask({ title: 'Sign in' });
    // The person is about to tap Approve: the card stays while they are in it, though the service no longer lists it.
    await page.focus(`[data-request="${created.auth_request}"] button.primary`);
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
      subject: `svc:${scene.serviceId}`,
    });
    await click('Approve');
    await shows('The service cancelled this request: there is nothing to answer.');
    await screenshot(page, 'cancelled');
    expectRefusedLoads(400);
  }, 60_000);

  it('says when a request expired, and offers nothing to send', async () => {
    // The shortest lifetime the service allows; the person has begun typing their PIN, so the card stays to say so.
    const created = await ask({ title: 'Sign in', ttl: 30, policy: knowledgeAndInherence });
    const card = `[data-request="${created.auth_request}"]`;
    await page.type(`${card} input[name="pin"]`, '24');
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent?.includes('This request expired.'),
      { timeout: 45_000, polling: 500 },
      card,
    );
    await shows('Nothing was sent.');
    expect(await page.$eval(card, (element) => (element as HTMLElement).innerText)).toMatch(
      /expired (now|\d+ seconds? ago)/,
    );
    expect(await page.$(`${card} button.primary`)).not.toBeNull();
    expect(await page.$eval(`${card} button.primary`, (button) => button.checkVisibility())).toBe(false);
    await screenshot(page, 'expired');
    // The service says so too: the poll of an expired request is a 408.
    await expect(scene.read(created.auth_request)).rejects.toMatchObject({ status: 408 });
  }, 60_000);

  it("approves inside a geofence with the browser's location, and fails outside it", async () => {
    await setLocation(page, origin, { latitude: 36.121, longitude: -115.171 });
    const inside = await ask({ policy: geofenced, title: 'Open the office door' });
    await shows('your location');
    await screenshot(page, 'geofence');
    await click('Approve');
    await outcome(inside.auth_request, 'Approved.');
    const approved = await answerOf(inside.auth_request);
    expect(approved).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
    expect(approved?.auth_methods).toContainEqual(
      expect.objectContaining({ method: 'geofencing', passed: true }),
    );

    await setLocation(page, origin, { latitude: 40.7, longitude: -74 });
    const outside = await ask({ policy: geofenced, title: 'Open the office door' });
    await click('Approve');
    await outcome(outside.auth_request, 'Sent, but not approved');
    await screenshot(page, 'geofence-outside');
    expect(await answerOf(outside.auth_request)).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
  }, 60_000);

  it('signs out of a service: the session ends and the service hears it by webhook', async () => {
    const created = await ask({ title: 'Sign in' });
    await click('Approve');
    await outcome(created.auth_request, 'Approved.');
    const poll = await scene.read(created.auth_request);
    await scene.service.call('POST', '/service/v3/sessions', {
      subject: `svc:${scene.serviceId}`,
      body: { username: 'alice', auth_request: created.auth_request },
    });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await page.waitForSelector('.session button');
    await screenshot(page, 'sessions');
    await page.locator('.session button').click();
    await shows('Signed out of');
    await shows('Not signed in anywhere.');
    const webhook = await webhooks.waitFor((each) => 'api_time' in each.body);
    expect(webhook.body.service_user_hash).toBe(poll.body?.service_user_hash);
  }, 60_000);

  it('unlinks the device: the directory no longer lists it and its keys leave the browser', async () => {
    await click('Unlink this device');
    await screenshot(page, 'unlink');
    await click('Yes, unlink');
    await shows('is unlinked');
    await shows('No device linked yet');
    await screenshot(page, 'unlinked');
    const listed = await scene.organization.client.call<unknown[]>('POST', '/directory/v3/devices/list', {
      subject: `dir:${scene.directoryId}`,
      body: { identifier: 'alice' },
    });
    expect(listed.body).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);
});
