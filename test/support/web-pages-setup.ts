import { ensureWebAuthenticator } from '#web/authenticator/build';
import { ensureWebConsole } from '#web/console/build';

/**
 * Vitest's global setup: the web authenticator's and the console's pages built from today's sources, and the headless
 * Chromium unpacked, once before any test file runs. Files run side by side; left to each, two could build the same
 * pages, or unpack the same browser, while a third serves or launches them half written.
 */
export async function setup(): Promise<void> {
  await Promise.all([ensureWebAuthenticator(), ensureWebConsole()]);
  if (!process.env.CHROMIUM_PATH) await (await import('@sparticuz/chromium')).default.executablePath();
}
