import { benchPage, type DeviceProfile, type PageFigures } from '#test/bench/cold-loads';
import { buildWebConsole, ensureWebConsole } from '#web/console/build';

/** The mark web/console/main.ts sets once its first screen is drawn. */
const firstScreenMark = 'console:first-screen';

/**
 * A laptop on an ordinary connection, throttled: Lighthouse's desktop network (40 ms round trips, 10 Mbps both ways)
 * and a CPU twice as slow as this machine's, for a laptop older than a build server.
 */
export const laptopProfile: DeviceProfile = {
  latencyMs: 40,
  downloadKbps: 10_240,
  uploadKbps: 10_240,
  cpuSlowdown: 2,
};

const laptopViewport = { width: 1366, height: 768, deviceScaleFactor: 1 };

/** The budgets for the console: its first screen within 1.5 s, at most 150 KB of JavaScript gzipped. */
export const consoleFirstScreenTargetMs = 1500;
export const consoleJavascriptGzipTargetKb = 150;

/**
 * Opens the console in headless Chromium on a throttled laptop, cold each time, against `npm start`'s runtime in
 * its own process, until its sign-in screen is drawn (the script run, the session asked for and found missing): the
 * first screen of every visit. Its JavaScript is every section's.
 */
export function benchConsoleScreen(loads: number): Promise<PageFigures> {
  return benchPage({
    name: 'console',
    build: buildWebConsole,
    ensureBuilt: ensureWebConsole,
    address: async (service) => new URL('/console/', service.baseUrl),
    profile: laptopProfile,
    viewport: laptopViewport,
    ready: (page) => page.waitForSelector('button ::-p-text(Sign in with a passkey)'),
    mark: firstScreenMark,
    loads,
  });
}
