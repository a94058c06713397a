import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coldLoads, type DeviceProfile, type LoadFigures } from '#test/bench/cold-loads';
import { round } from '#test/bench/stats';
import { launchBrowser, phoneViewport } from '#test/support/browser';
import { demoOrganization, startServiceProcess } from '#test/support/service-process';
import { setUpTenant } from '#test/support/tenant';
import { buildWebAuthenticator, ensureWebAuthenticator } from '#web/authenticator/build';

/** The mark web/authenticator/main.ts sets once its first screen is drawn. */
const firstScreenMark = 'authenticator:first-screen';

/** Lighthouse's "slow 4G" mobile profile: 150 ms round trips, 1.6 Mbps down, 750 Kbps up, and a CPU 4× slower. */
export const mobileProfile: DeviceProfile = {
  latencyMs: 150,
  downloadKbps: 1638.4,
  uploadKbps: 750,
  cpuSlowdown: 4,
};

/** The budgets the issue sets: the first screen usable within a second, at most 150 KB of JavaScript gzipped. */
export const firstScreenTargetMs = 1000;
export const javascriptGzipTargetKb = 150;

/** First screen: the heading, the linking form, the script run. */
export interface WebFigures extends LoadFigures {
  readonly loads: number;
  readonly profile: DeviceProfile;
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

    const figures = await coldLoads(browser, {
      url: url.href,
      profile: mobileProfile,
      viewport: phoneViewport,
      ready: (page) => page.waitForSelector('h2 ::-p-text(Link this browser)'),
      mark: firstScreenMark,
      loads,
    });
    return {
      loads,
      profile: mobileProfile,
      ...figures,
      javascriptGzipKb: round(javascriptGzipBytes / 1024, 1),
    };
  } finally {
    await browser.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
