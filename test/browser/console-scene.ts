import type { Browser, Page } from 'puppeteer-core';
import type { ConsoleRole } from '#shared/domain/console-admin';
import { click, shows } from './page-scene.ts';
import { addVirtualAuthenticator, launchBrowser } from '#test/support/browser';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { ensureWebAuthenticator } from '#web/authenticator/build';
import { ensureWebConsole } from '#web/console/build';

/** A laptop's screen: where the console is used most, besides a tablet. */
export const laptop = { width: 1280, height: 800 };
export const tablet = { width: 820, height: 1180, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** A console page with a platform authenticator; what went wrong on it is collected for the test to assert on. */
export interface ConsolePage {
  readonly page: Page;
  /** Page errors and console errors. */
  readonly problems: string[];
  readonly cspViolations: string[];
}

/** The local runtime and a browser, as the console's browser tests drive them. */
export interface ConsoleScene {
  readonly runtime: TestRuntime;
  readonly browser: Browser;
  /** The runtime as a browser on this machine reaches it: `localhost`, a secure context and the passkeys' RP id. */
  readonly origin: string;
  readonly store: typeof import('#test/integration/console/console-store');
  /** A new page with the laptop's screen and a platform authenticator. */
  consolePage(): Promise<ConsolePage>;
  /**
   * A page of an admin of `role` enrolled from an invite and signed in, on the first section. Every role but the
   * auditor's has its sign-in approved by the store stand-in (console-approval.test.ts goes through the real one).
   */
  signedInPage(role: ConsoleRole, organizationId: string | null, name?: string): Promise<ConsolePage>;
  close(): Promise<void>;
}

export const inviteToken = (url: string) => new URL(url).hash.replace(/^#invite=/, '');

export async function startConsoleScene(): Promise<ConsoleScene> {
  await Promise.all([ensureWebConsole(), ensureWebAuthenticator()]);
  const runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  const origin = url.origin;
  const store = await import('#test/integration/console/console-store');
  const browser = await launchBrowser();

  async function consolePage(): Promise<ConsolePage> {
    const page = await browser.newPage();
    await page.setViewport(laptop);
    await addVirtualAuthenticator(page);
    const problems: string[] = [];
    const cspViolations: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
      else if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    return { page, problems, cspViolations };
  }

  async function signedInPage(
    role: ConsoleRole,
    organizationId: string | null,
    name = `${role} of the test`,
  ): Promise<ConsolePage> {
    const opened = await consolePage();
    const { page, problems } = opened;
    const invite = await store.invite(organizationId, role, origin);
    await page.goto(`${origin}/console/#invite=${inviteToken(invite.url)}`, { waitUntil: 'load' });
    await shows(page, 'Join the console', problems);
    await page.locator('::-p-aria(Your name)').fill(name);
    await click(page, 'Create passkey');
    await shows(page, 'Your passkey is set up. Sign in with it now.', problems);
    await click(page, 'Sign in with a passkey');
    if (role === 'auditor') {
      await shows(page, 'Sign out', problems);
      return opened;
    }
    await shows(page, 'Approve this sign-in', problems);
    const cookie = (await page.cookies()).find((each) => each.name === '__Host-console');
    await store.approveSessionForTest(`${cookie?.name}=${cookie?.value}`);
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('nav.sections');
    // The approval step may have logged its 409 (no authenticator linked) before the stand-in approved: the sign-in's,
    // not the test's.
    problems.length = 0;
    return opened;
  }

  return {
    runtime,
    browser,
    origin,
    store,
    consolePage,
    signedInPage,
    async close() {
      await browser.close();
      await runtime.stop();
    },
  };
}
