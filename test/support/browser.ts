import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import puppeteer from 'puppeteer-core';
import { projectRoot } from '#test/support/service-process';

/** Where screenshots go: what a person sees on a phone, one file per screen. */
export const screenshotDir = join(projectRoot, '.tmp', 'screens');

/** A phone's viewport: what the screenshots show. */
export const phoneViewport = {
  width: 390,
  height: 844,
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

/**
 * A headless Chromium: the system's when `CHROMIUM_PATH` names one, else the one `npm ci` brings
 * (@sparticuz/chromium, unpacked into the temp directory on first use). Never a silent skip: a browser that cannot
 * start fails with what to do about it.
 */
export async function launchBrowser(): Promise<Browser> {
  let executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) {
    const { default: chromium } = await import('@sparticuz/chromium');
    executablePath = await chromium.executablePath();
    // The package unpacks its fonts beside the binary; without them a fresh machine's screenshots show no text.
    const fonts = join(tmpdir(), 'fonts');
    if (!process.env.FONTCONFIG_PATH && existsSync(join(fonts, 'fonts.conf')))
      process.env.FONTCONFIG_PATH = fonts;
  }
  try {
    // --no-sandbox alone: the package's own argument list would turn off web security, which these tests check.
    // BROWSER_LOG=1 shows the browser's own output (crashes, CDP errors) when a flow fails for no reason on screen.
    return await puppeteer.launch({
      executablePath,
      headless: 'shell',
      args: ['--no-sandbox'],
      dumpio: process.env.BROWSER_LOG === '1',
    });
  } catch (error) {
    throw new Error(
      `No headless Chromium could start (${executablePath}): ${(error as Error).message.split('\n')[0]}. ` +
        'On Debian it needs libnss3 and libexpat1 (`apt-get install -y libnss3 libexpat1`, which .ci/run does); ' +
        'or set CHROMIUM_PATH to a Chromium or Chrome of your own.',
      { cause: error },
    );
  }
}

/** A page with a phone's viewport (in the browser, or one of its contexts: another phone), its console errors and failed requests collected for the test to check. */
export async function phonePage(
  browser: Pick<Browser, 'newPage'> | { newPage(): Promise<Page> },
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport(phoneViewport);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${(error as Error).message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, problems };
}

/** The platform authenticator of a phone, as Chrome DevTools emulates it: a passkey with user verification. */
export interface VirtualAuthenticator {
  /** Whether the next ceremonies pass user verification (a biometric that matches, or not). */
  setUserVerified(verified: boolean): Promise<void>;
  credentials(): Promise<{ credentialId: string; signCount: number }[]>;
}

export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const session: CDPSession = await page.createCDPSession();
  await session.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async setUserVerified(verified) {
      await session.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: verified });
    },
    async credentials() {
      const { credentials } = await session.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials.map(({ credentialId, signCount }) => ({ credentialId, signCount }));
    },
  };
}

/** Where the browser says it is: a geolocation override, with permission granted to the origin. */
export async function setLocation(
  page: Page,
  origin: string,
  location: { latitude: number; longitude: number; accuracy?: number },
): Promise<void> {
  await page.browserContext().overridePermissions(origin, ['geolocation']);
  await page.setGeolocation({ accuracy: 10, ...location });
}

/** The page's service worker registrations by scope, as one CDP session that stays attached sees them. */
interface ServiceWorkerWatch {
  readonly session: CDPSession;
  registrationFor(origin: string): Promise<string>;
}

const serviceWorkerWatches = new WeakMap<Page, Promise<ServiceWorkerWatch>>();

/**
 * One ServiceWorker session per page, never detached: detaching any CDP session of a page turns its WebAuthn virtual
 * authenticator environment off, and the next passkey ceremony then crashes the browser (SIGSEGV).
 */
function serviceWorkerWatch(page: Page): Promise<ServiceWorkerWatch> {
  let watch = serviceWorkerWatches.get(page);
  if (!watch) {
    watch = (async () => {
      const session = await page.createCDPSession();
      const scopes = new Map<string, string>();
      const waiting = new Set<() => void>();
      session.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        for (const each of registrations) {
          if (each.isDeleted) scopes.delete(each.scopeURL);
          else scopes.set(each.scopeURL, each.registrationId);
        }
        for (const wake of waiting) wake();
      });
      await session.send('ServiceWorker.enable');
      const find = (origin: string) => [...scopes].find(([scope]) => scope.startsWith(origin))?.[1];
      return {
        session,
        registrationFor: (origin) =>
          new Promise<string>((resolve, reject) => {
            const check = () => {
              const found = find(origin);
              if (found === undefined) return;
              clearTimeout(timer);
              waiting.delete(check);
              resolve(found);
            };
            const timer = setTimeout(() => {
              waiting.delete(check);
              reject(new Error(`no service worker registered for ${origin}`));
            }, 10_000);
            waiting.add(check);
            check();
          }),
      };
    })();
    serviceWorkerWatches.set(page, watch);
  }
  return watch;
}

/**
 * Hands a push message to the origin's service worker, as a push service would after decryption: the only way to
 * drive the `push` handler offline, since `pushManager.subscribe` needs a real push service.
 */
export async function deliverPush(page: Page, origin: string, data: unknown): Promise<void> {
  const watch = await serviceWorkerWatch(page);
  const registrationId = await watch.registrationFor(origin);
  await watch.session.send('ServiceWorker.deliverPushMessage', {
    origin,
    registrationId,
    data: JSON.stringify(data),
  });
}

/** Saves what the page shows now as `<name>.png` under .tmp/screens. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`) as `${string}.png`;
  await page.screenshot({ path, fullPage: false });
  return path;
}
