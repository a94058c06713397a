import { benchPage, type DeviceProfile, type PageFigures } from '#test/bench/cold-loads';
import { phoneViewport } from '#test/support/browser';
import { demoOrganization } from '#test/support/service-process';
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

/**
 * Opens the web authenticator from a QR URL in headless Chromium on a throttled phone, cold each time (a fresh
 * browser context: no cache, no service worker, no stored state), against `npm start`'s runtime in its own process,
 * until its first screen is drawn (the heading, the linking form, the script run). Its JavaScript is the page's and
 * the service worker's.
 */
export function benchWeb(loads: number): Promise<PageFigures> {
  return benchPage({
    name: 'web',
    build: buildWebAuthenticator,
    ensureBuilt: ensureWebAuthenticator,
    address: async (service) => {
      const { client: organization } = await demoOrganization(service);
      const tenant = await setUpTenant(organization, service.baseUrl, { name: 'Bench web' });
      const code = (
        await organization.call<{ code: string }>('POST', '/directory/v3/devices', {
          subject: `dir:${tenant.directoryId}`,
          body: { identifier: 'bench' },
        })
      ).body?.code as string;
      return new URL(`/authenticator/#code=${code}`, service.baseUrl);
    },
    profile: mobileProfile,
    viewport: phoneViewport,
    ready: (page) => page.waitForSelector('h2 ::-p-text(Link this browser)'),
    mark: firstScreenMark,
    loads,
  });
}
