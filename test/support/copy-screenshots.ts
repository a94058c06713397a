/**
 * The README's screenshots: copies the chosen screens the browser tests captured (.tmp/screens) to docs/screens.
 * `npm run screenshots` runs it only after those tests pass, so a picture never shows a flow that no longer works.
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { screenshotDir } from '#test/support/browser';
import { projectRoot } from '#test/support/service-process';

/**
 * The screens the README shows: linked, a request (light and dark), denying with the fraud reason chosen and what
 * reporting fraud does, approved, a new device asking to join, a page opened where passkeys cannot work; and the
 * console's services, a generated key pair, a relink by the help desk, the audit trail and push health.
 */
const readmeScreens = [
  'linked',
  'request',
  'request-dark',
  'deny',
  'approved',
  'link-request',
  'passkey-at-ip-address',
  'console-services',
  'console-key-generated',
  'console-user-relink',
  'console-audit',
  'console-health',
] as const;

const target = join(projectRoot, 'docs', 'screens');

await mkdir(target, { recursive: true });
for (const name of readmeScreens) {
  const from = join(screenshotDir, `${name}.png`);
  const to = join(target, `${name}.png`);
  await copyFile(from, to);
  process.stdout.write(`docs/screens/${name}.png (${Math.round((await stat(to)).size / 1024)} KB)\n`);
}
