import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coldLoads, type DeviceProfile, type LoadFigures } from '#test/bench/cold-loads';
import { round } from '#test/bench/stats';
import { launchBrowser } from '#test/support/browser';
import { startServiceProcess } from '#test/support/service-process';
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

/** First screen: sign-in, with its button, for someone not signed in (every visit starts there). */
export interface ConsoleScreenFigures extends LoadFigures {
  readonly loads: number;
  readonly profile: DeviceProfile;
  /** The console's JavaScript, every section in it, gzipped at the highest level. */
  readonly javascriptGzipKb: number;
}

/**
 * Opens the console in headless Chromium on a throttled laptop, cold each time, against `npm start`'s runtime in
 * its own process, until its sign-in screen is drawn (the script run, the session asked for and found missing).
 */
export async function benchConsoleScreen(loads: number): Promise<ConsoleScreenFigures> {
  await ensureWebConsole();
  // Sized from a build of its own: the served one may be rebuilt under us by a test run.
  const sizing = await mkdtemp(join(tmpdir(), 'mfa-bench-console-build-'));
  const { javascriptGzipBytes } = await buildWebConsole(sizing);
  await rm(sizing, { recursive: true, force: true });

  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-console-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  const browser = await launchBrowser();
  try {
    const url = new URL('/console/', service.baseUrl);
    url.hostname = 'localhost';
    const figures = await coldLoads(browser, {
      url: url.href,
      profile: laptopProfile,
      viewport: laptopViewport,
      ready: (page) => page.waitForSelector('button ::-p-text(Sign in with a passkey)'),
      mark: firstScreenMark,
      loads,
    });
    return {
      loads,
      profile: laptopProfile,
      ...figures,
      javascriptGzipKb: round(javascriptGzipBytes / 1024, 1),
    };
  } finally {
    await browser.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
