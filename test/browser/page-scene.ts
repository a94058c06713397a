import type { Browser, Page } from 'puppeteer-core';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import {
  addVirtualAuthenticator,
  launchBrowser,
  phonePage,
  type VirtualAuthenticator,
} from '#test/support/browser';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { ensureWebAuthenticator } from '#web/authenticator/build';

/** The local runtime, a tenant, and one phone page with a platform authenticator: what a browser test drives. */
export interface PageScene {
  readonly runtime: TestRuntime;
  readonly scene: AuthScene;
  readonly browser: Browser;
  readonly page: Page;
  /** Console errors and failed loads the page saw. */
  readonly problems: string[];
  readonly passkey: VirtualAuthenticator;
  /** The runtime as a phone's browser reaches it on this machine: `localhost`, a secure context and the RP id. */
  readonly origin: string;
  close(): Promise<void>;
}

export async function startPageScene(): Promise<PageScene> {
  await ensureWebAuthenticator();
  const runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  const scene = await newAuthScene(runtime);
  const browser = await launchBrowser();
  const { page, problems } = await phonePage(browser);
  const passkey = await addVirtualAuthenticator(page);
  return {
    runtime,
    scene,
    browser,
    page,
    problems,
    passkey,
    origin: url.origin,
    async close() {
      await browser.close();
      await runtime.stop();
    },
  };
}

/** A linking code for the directory user, as the application gets it for its QR code. */
export async function qrCode(scene: AuthScene, identifier: string): Promise<string> {
  const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
    subject: `dir:${scene.directoryId}`,
    body: { identifier },
  });
  return started.body?.code as string;
}

export const click = (page: Page, text: string) => page.locator(`button::-p-text(${text})`).click();

/** Waits for the text on screen; on a timeout, the failure says what the screen shows instead. */
export async function shows(page: Page, text: string, problems: readonly string[] = []): Promise<void> {
  try {
    await page.waitForFunction(
      (wanted) => document.body.innerText.includes(wanted),
      { timeout: 15_000 },
      text,
    );
  } catch {
    const screen = await page.evaluate(() => document.body.innerText);
    throw new Error(`"${text}" is not on screen, which shows:\n${screen}\nproblems: ${problems.join('; ')}`);
  }
}

/**
 * Links this browser from the QR URL as a person does: names the device, adds the passkey, sets the PIN, and goes on
 * without notifications (a headless browser reaches no push service). `onLinkScreen` looks at the first screen before
 * it is used. Returns the new card's device id.
 */
export async function linkFromQr(
  { page, origin, scene, problems }: PageScene,
  identifier: string,
  deviceName: string,
  onLinkScreen?: () => Promise<void>,
): Promise<string> {
  const code = await qrCode(scene, identifier);
  await page.goto(`${origin}/authenticator/#code=${code}`, { waitUntil: 'load' });
  await shows(page, `Linking code ${code}`, problems);
  await onLinkScreen?.();
  await page.locator('::-p-aria(Name this device)').fill(deviceName);
  await click(page, 'Link this browser');
  await shows(page, 'Add a passkey', problems);
  await click(page, 'Add a passkey');
  await shows(page, 'Set a PIN', problems);
  await page.type('input[autocomplete="new-password"]', '2468');
  await page.locator('::-p-aria(PIN again)').fill('2468');
  await click(page, 'Set PIN');
  await shows(page, 'Get notified', problems);
  await click(page, 'Continue without notifications');
  const card = await page.waitForFunction(
    (name) =>
      [...document.querySelectorAll('section.card')]
        .find((each) => each.querySelector('h2')?.textContent === name)
        ?.getAttribute('data-device'),
    { timeout: 15_000 },
    deviceName,
  );
  return (await card.jsonValue()) as string;
}
