import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, phonePage, screenshot } from '#test/support/browser';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let runtime: TestRuntime;
let browser: Browser;
/** The runtime as a phone's browser would reach it on this machine: `localhost` is a secure context. */
let origin: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await runtime?.stop();
});

describe('the web authenticator in a real browser', () => {
  it('opens from the QR URL in a secure context, under its CSP, and registers its service worker', async () => {
    const { page, problems } = await phonePage(browser);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${origin}/authenticator/#code=ABCD2345`, { waitUntil: 'load' });
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    await page.waitForFunction(() => document.querySelector('h1') !== null);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${origin}/authenticator/`);
    await screenshot(page, 'shell');
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
  }, 30_000);
});
