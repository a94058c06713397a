import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './axe.ts';
import { click, shows } from './page-scene.ts';
import { type ConsoleScene, startConsoleScene } from './console-scene.ts';
import { engineClientConfig } from '#infra/local/engines';
import { screenshot } from '#test/support/browser';

/**
 * The operator's dead letters page (docs/console.md#dead-letters-page) in a real Chromium against the local runtime:
 * webhook events the worker cannot build are dead-lettered, the operator sees them with what they were about, redrives
 * one and it leaves the list; the push queue's empty state; an owner is offered no such page and refused by the API.
 */

let scene: ConsoleScene;
let sqs: SQSClient;

beforeAll(async () => {
  scene = await startConsoleScene();
  sqs = new SQSClient(engineClientConfig(scene.runtime.runtime.engines.sqsEndpoint));
}, 120_000);
afterAll(async () => {
  sqs?.destroy();
  await scene?.close();
});

/** An event about an auth request that does not exist: the worker dead-letters it at once, with the reason. */
async function deadLetteredWebhook(): Promise<string> {
  const authRequestId = crypto.randomUUID();
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: scene.runtime.runtime.queues.queueUrl,
      MessageBody: JSON.stringify({ kind: 'authorization-response', authRequestId }),
    }),
  );
  return authRequestId;
}

/** The message id of the listed row about this auth request, once the page lists it (reading again until then). */
async function rowAbout(page: Page, authRequestId: string): Promise<string> {
  for (let tries = 0; tries < 50; tries++) {
    const id = await page.evaluate(
      (wanted) =>
        [...document.querySelectorAll<HTMLTableRowElement>('tr[data-message]')].find((row) =>
          row.textContent?.includes(wanted),
        )?.dataset.message ?? null,
      authRequestId,
    );
    if (id) return id;
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('.dead-letter-list, .dead-letters .empty', { timeout: 15_000 });
  }
  throw new Error(`No dead letter about ${authRequestId} was listed`);
}

describe('the operator’s dead letters page in a real browser', () => {
  it('lists dead letters, redrives one of them and says how many went back', async () => {
    const first = await deadLetteredWebhook();
    const second = await deadLetteredWebhook();
    const { page, problems, cspViolations } = await scene.signedInPage('operator', null, 'Opal Operator');

    await page.locator('nav.sections ::-p-aria(Dead letters)').click();
    expect(await page.evaluate(() => location.hash)).toBe('#dead-letters');
    const firstId = await rowAbout(page, first);
    const secondId = await rowAbout(page, second);
    const row = await page.$eval(`tr[data-message="${firstId}"]`, (tr) =>
      [...tr.cells].map((cell) => cell.textContent),
    );
    expect(row.slice(1)).toEqual([
      firstId,
      `kindauthorization-responseauthRequestId${first}`,
      '1',
      `auth request ${first} has no answer`,
      expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/),
    ]);
    await expectAccessible(page, 'dead letters');
    await screenshot(page, 'console-dead-letters');

    // The first chosen and redriven: the notice says one went back, and it leaves the list (the worker fails it again
    // later as a new message, under a new id).
    await page.locator(`tr[data-message="${firstId}"] input[type=checkbox]`).click();
    await click(page, 'Redrive chosen');
    await shows(page, '1 message went back on the webhooks queue.', problems);
    await page.waitForFunction(
      (id) => !document.querySelector(`tr[data-message="${id}"]`),
      { timeout: 15_000 },
      firstId,
    );
    expect(await page.$(`tr[data-message="${secondId}"]`)).not.toBeNull();
    await expectAccessible(page, 'dead letters after a redrive');

    // The push queue's dead letters: none.
    await page.locator('.queue-tabs ::-p-text(Push)').click();
    await shows(page, 'Nothing in the push queue’s dead letters.', problems);
    expect(await page.evaluate(() => location.hash)).toBe('#dead-letters/push');
    await expectAccessible(page, 'no push dead letters');

    expect(problems).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('offers an owner no dead letters, and the API refuses them', async () => {
    const { organization } = await scene.store.organization(`Dead letters ${Date.now()}`);
    const { page, problems, cspViolations } = await scene.signedInPage('owner', organization.id);
    const links = await page.$$eval('nav.sections a', (each) => each.map((link) => link.textContent));
    expect(links).toContain('Admins');
    expect(links).not.toContain('Dead letters');
    const answer = await page.evaluate(() =>
      fetch('api/dead-letters/webhooks').then(async (reply) => ({
        status: reply.status,
        code: ((await reply.json()) as { error_code: string }).error_code,
      })),
    );
    expect(answer).toEqual({ status: 403, code: 'CON-003' });
    // The refusal the test asked for is the browser's logged 403, not the page's problem.
    expect(problems.filter((each) => !each.includes('status of 403'))).toEqual([]);
    expect(cspViolations).toEqual([]);
    await page.close();
  });
});
