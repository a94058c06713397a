import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { screenshot } from '#test/support/browser';
import { rsaKeyPair } from '#test/support/keys';

/**
 * Confirming with the passkey (docs/console.md#confirming-with-the-passkey) in a real Chromium: an admin whose
 * passkey is older than 5 minutes adds a key; the console asks for the passkey in a dialog, and the key is added once
 * it is given, or not at all when the admin cancels.
 */
let scene: ConsoleScene;
let directoryId: string;

beforeAll(async () => {
  scene = await startConsoleScene();
  directoryId = await scene.store.directory(scene.runtime.organizationId, 'Confirmed');
}, 120_000);
afterAll(() => scene?.close());

async function staleAdminOnKeys() {
  const opened = await scene.signedInPage('admin', scene.runtime.organizationId, 'Sam Stale');
  const cookie = (await opened.page.cookies()).find((each) => each.name === '__Host-console');
  await scene.store.ageSession(`${cookie?.name}=${cookie?.value}`, {
    idleSeconds: 30,
    sinceSignInSeconds: 6 * 60,
  });
  await opened.page.goto(`${scene.origin}/console/#keys/directories/${directoryId}`, { waitUntil: 'load' });
  await opened.page.waitForSelector(`.keys[data-owner="directories/${directoryId}"] h2`);
  return opened;
}

const keyIds = async () =>
  (
    (
      await scene.runtime.client().call<{ id: string }[]>('POST', '/organization/v3/directory/keys/list', {
        body: { directory_id: directoryId },
      })
    ).body ?? []
  ).map((key) => key.id);

describe('confirming with the passkey in a real browser', () => {
  it('asks for the passkey before a key change 6 minutes after sign-in, then makes the change', async () => {
    const { page, problems, cspViolations } = await staleAdminOnKeys();
    const pasted = rsaKeyPair();
    await page.locator('::-p-aria(Public key (PEM))').fill(pasted.publicPem);
    await click(page, 'Add public key');
    await shows(page, 'Confirm it is you', problems);
    await expectAccessible(page, 'confirmation dialog');
    await screenshot(page, 'console-confirmation');
    expect(await keyIds()).not.toContain(pasted.kid);
    await click(page, 'Confirm with passkey');
    await shows(page, `Key ${pasted.kid} added.`, problems);
    expect(await page.$('dialog.confirmation')).toBeNull();
    expect(await keyIds()).toContain(pasted.kid);
    expect(cspViolations).toEqual([]);
    // The refused first attempt, which the browser logs itself, and nothing else.
    expect(problems.filter((each) => !each.includes('status of 403'))).toEqual([]);
    await page.close();
  }, 120_000);

  it('changes nothing when the admin cancels, and says so', async () => {
    const { page, problems } = await staleAdminOnKeys();
    const pasted = rsaKeyPair();
    await page.locator('::-p-aria(Public key (PEM))').fill(pasted.publicPem);
    await click(page, 'Add public key');
    await shows(page, 'Confirm it is you', problems);
    await click(page, 'Cancel');
    await shows(
      page,
      'This change needs your passkey again, and it was not given. Nothing was changed.',
      problems,
    );
    expect(await keyIds()).not.toContain(pasted.kid);
    await page.close();
  }, 120_000);
});
