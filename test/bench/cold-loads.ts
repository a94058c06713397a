import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { percentile, round } from '#test/bench/stats';
import { launchBrowser } from '#test/support/browser';
import { type ServiceProcess, startServiceProcess } from '#test/support/service-process';

/** A device as Lighthouse throttles it: round-trip latency, throughput, and how many times slower its CPU is. */
export interface DeviceProfile {
  readonly latencyMs: number;
  readonly downloadKbps: number;
  readonly uploadKbps: number;
  readonly cpuSlowdown: number;
}

export interface LoadFigures {
  /** From the navigation's start to the page's first-screen mark. */
  readonly firstScreenMs: { readonly median: number; readonly p95: number; readonly max: number };
  /** The same, as the bench sees it: from asking for the page to seeing its first screen. */
  readonly wallMs: { readonly median: number; readonly p95: number };
}

/**
 * Opens `url` `loads` times, cold each time (a fresh browser context: no cache, no service worker, no stored state),
 * on a device throttled to `profile`, and times it to the `mark` the page sets once its first screen is drawn. One
 * load more is made first and not counted: it pays for the server's cold modules, which no visitor's page does.
 */
export async function coldLoads(
  browser: Browser,
  options: {
    readonly url: string;
    readonly profile: DeviceProfile;
    readonly viewport: Parameters<Page['setViewport']>[0];
    /** Waits for what a person sees on the first screen. */
    readonly ready: (page: Page) => Promise<unknown>;
    readonly mark: string;
    readonly loads: number;
  },
): Promise<LoadFigures> {
  const { profile } = options;
  const firstScreen: number[] = [];
  const wall: number[] = [];
  for (let load = 0; load < options.loads + 1; load++) {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.setViewport(options.viewport);
      const cdp = await page.createCDPSession();
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: profile.latencyMs,
        downloadThroughput: (profile.downloadKbps * 1024) / 8,
        uploadThroughput: (profile.uploadKbps * 1024) / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
      const started = performance.now();
      await page.goto(options.url, { waitUntil: 'domcontentloaded' });
      await options.ready(page);
      const mark = await page.waitForFunction(
        (name) => performance.getEntriesByName(name)[0]?.startTime,
        { polling: 'raf' },
        options.mark,
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
    firstScreenMs: {
      median: round(percentile(firstScreen, 50), 0),
      p95: round(percentile(firstScreen, 95), 0),
      max: round(Math.max(...firstScreen), 0),
    },
    wallMs: { median: round(percentile(wall, 50), 0), p95: round(percentile(wall, 95), 0) },
  };
}

/** A page's cold loads, with its JavaScript's size. */
export interface PageFigures extends LoadFigures {
  readonly loads: number;
  readonly profile: DeviceProfile;
  /** The page's JavaScript, gzipped at the highest level. */
  readonly javascriptGzipKb: number;
}

/**
 * A page's figures against `npm start`'s runtime in its own process: its JavaScript sized from a build of its own
 * (the served one may be rebuilt under us by a test run), then `coldLoads` of the address `address` gives.
 */
export async function benchPage(options: {
  readonly name: string;
  readonly build: (outdir: string) => Promise<{ readonly javascriptGzipBytes: number }>;
  readonly ensureBuilt: () => Promise<unknown>;
  readonly address: (service: ServiceProcess) => Promise<URL>;
  readonly profile: DeviceProfile;
  readonly viewport: Parameters<Page['setViewport']>[0];
  readonly ready: (page: Page) => Promise<unknown>;
  readonly mark: string;
  readonly loads: number;
}): Promise<PageFigures> {
  await options.ensureBuilt();
  const sizing = await mkdtemp(join(tmpdir(), `mfa-bench-${options.name}-build-`));
  const { javascriptGzipBytes } = await options.build(sizing);
  await rm(sizing, { recursive: true, force: true });

  const dataDir = await mkdtemp(join(tmpdir(), `mfa-bench-${options.name}-`));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  const browser = await launchBrowser();
  try {
    const url = await options.address(service);
    // A WebAuthn relying party is a domain name, never an address: the pages are opened on localhost.
    url.hostname = 'localhost';
    const figures = await coldLoads(browser, { ...options, url: url.href });
    return {
      loads: options.loads,
      profile: options.profile,
      ...figures,
      javascriptGzipKb: round(javascriptGzipBytes / 1024, 1),
    };
  } finally {
    await browser.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
