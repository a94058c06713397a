import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, round } from '#test/bench/stats';
import { launchBrowser, phoneViewport } from '#test/support/browser';
import { demoOrganization, startServiceProcess } from '#test/support/service-process';
import { setUpTenant } from '#test/support/tenant';
import { buildWebAuthenticator, ensureWebAuthenticator } from '#web/authenticator/build';

/** The mark web/authenticator/main.ts sets once its first screen is drawn. */
const firstScreenMark = 'authenticator:first-screen';

/** Lighthouse's "slow 4G" mobile profile: 150 ms round trips, 1.6 Mbps down, 750 Kbps up, and a CPU 4× slower. */
export const mobileProfile = {
  latencyMs: 150,
  downloadKbps: 1638.4,
  uploadKbps: 750,
  cpuSlowdown: 4,
} as const;

/** The budgets the issue sets: the first screen usable within a second, at most 150 KB of JavaScript gzipped. */
export const firstScreenTargetMs = 1000;
export const javascriptGzipTargetKb = 150;

export interface WebFigures {
  readonly loads: number;
  readonly profile: typeof mobileProfile;
  /** From the navigation's start to the first screen drawn (the heading, the linking form, the script run). */
  readonly firstScreenMs: { readonly median: number; readonly p95: number; readonly max: number };
  /** The same, as this process sees it: from asking for the page to seeing the linking form. */
  readonly wallMs: { readonly median: number; readonly p95: number };
  /** The page's and the service worker's JavaScript, gzipped at the highest level. */
  readonly javascriptGzipKb: number;
}

/**
 * Opens the web authenticator from a QR URL in headless Chromium on a throttled phone, cold each time (a fresh
 * browser context: no cache, no service worker, no stored state), against `npm start`'s runtime in its own process.
 */
export async function benchWeb(loads: number): Promise<WebFigures> {
  await ensureWebAuthenticator();
  // Sized from a build of its own: the served one may be rebuilt under us by a test run.
  const sizing = await mkdtemp(join(tmpdir(), 'mfa-bench-web-build-'));
  const { javascriptGzipBytes } = await buildWebAuthenticator(sizing);
  await rm(sizing, { recursive: true, force: true });

  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-web-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  const browser = await launchBrowser();
  try {
    const { client: organization } = await demoOrganization(service);
    const tenant = await setUpTenant(organization, service.baseUrl, { name: 'Bench web' });
    const code = (
      await organization.call<{ code: string }>('POST', '/directory/v3/devices', {
        subject: `dir:${tenant.directoryId}`,
        body: { identifier: 'bench' },
      })
    ).body?.code as string;
    const url = new URL(`/authenticator/#code=${code}`, service.baseUrl);
    url.hostname = 'localhost';

    const firstScreen: number[] = [];
    const wall: number[] = [];
    // The first load pays for the server's cold modules: not a phone's concern.
    for (let load = 0; load < loads + 1; load++) {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport(phoneViewport);
        const cdp = await page.createCDPSession();
        await cdp.send('Network.enable');
        await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: mobileProfile.latencyMs,
          downloadThroughput: (mobileProfile.downloadKbps * 1024) / 8,
          uploadThroughput: (mobileProfile.uploadKbps * 1024) / 8,
        });
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: mobileProfile.cpuSlowdown });
        const started = performance.now();
        await page.goto(url.href, { waitUntil: 'domcontentloaded' });
        await page.waitForSelector('h2 ::-p-text(Link this browser)');
        const mark = await page.waitForFunction(
          (name) => performance.getEntriesByName(name)[0]?.startTime,
          { polling: 'raf' },
          firstScreenMark,
        );
        const wallMs = performance.now() - started;
        if (load === 0) continue;
        firstScreen.push((await mark.jsonValue()) as number);
        wall.push(wallMs);
      } finally {
        await context.close();
      }
    }
    return {
      loads,
      profile: mobileProfile,
      firstScreenMs: {
        median: round(percentile(firstScreen, 50), 0),
        p95: round(percentile(firstScreen, 95), 0),
        max: round(Math.max(...firstScreen), 0),
      },
      wallMs: { median: round(percentile(wall, 50), 0), p95: round(percentile(wall, 95), 0) },
      javascriptGzipKb: round(javascriptGzipBytes / 1024, 1),
    };
  } finally {
    await browser.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
