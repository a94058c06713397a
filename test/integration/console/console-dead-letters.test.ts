import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig } from '#infra/local/engines';
import { consoleClient, refusal } from '#test/integration/console/console-client';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * The operator's dead letters in the console (docs/console.md#dead-letters): a webhook event the worker could not
 * build is dead-lettered, the operator lists it and redrives it, and an organization's owner is refused.
 */

let runtime: TestRuntime;
let sqs: SQSClient;
let client: Awaited<ReturnType<typeof consoleClient>>;

beforeAll(async () => {
  runtime = await startTestRuntime();
  sqs = new SQSClient(engineClientConfig(runtime.runtime.engines.sqsEndpoint));
  client = await consoleClient(runtime);
}, 60_000);
afterAll(async () => {
  sqs?.destroy();
  await runtime?.stop();
});

interface Listed {
  readonly message_id: string;
  readonly event: Record<string, string> | null;
  readonly attempts: number | null;
  readonly reason: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the operator’s dead letters', () => {
  it('lists a dead-lettered webhook, redrives it, and records both; an owner is refused', async () => {
    const operator = await client.signedIn('operator', null);
    const since = new Date();
    // An event about an auth request that does not exist: the worker dead-letters it at once, with the reason.
    const unknown = crypto.randomUUID();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: runtime.runtime.queues.queueUrl,
        MessageBody: JSON.stringify({ kind: 'authorization-response', authRequestId: unknown }),
      }),
    );
    const listed = async () => {
      const answer = await client.call('GET', '/dead-letters/webhooks', { session: operator });
      expect(answer.status).toBe(200);
      return (answer.body?.dead_letters as Listed[]).filter((each) => each.event?.authRequestId === unknown);
    };
    let letter: Listed | undefined;
    for (let tries = 0; tries < 100 && !letter; tries++) {
      [letter] = await listed();
      if (!letter) await sleep(100);
    }
    expect(letter).toMatchObject({ reason: `auth request ${unknown} has no answer`, attempts: 1 });

    const redriven = await client.call('POST', '/dead-letters/webhooks/redrive', {
      session: operator,
      body: { message_ids: [letter?.message_id] },
    });
    expect(redriven.status).toBe(200);
    expect((redriven.body?.redriven as Listed[]).map((each) => each.message_id)).toEqual([
      letter?.message_id,
    ]);
    // Back on the queue as a first attempt: the worker fails it again, as a new message in the DLQ.
    let again: Listed | undefined;
    for (let tries = 0; tries < 100 && !again; tries++) {
      [again] = await listed();
      if (!again) await sleep(100);
    }
    expect(again?.message_id).toBeDefined();
    expect(again?.message_id).not.toBe(letter?.message_id);

    const { queryAuditRecords } = await import('#shared/store/audit-records');
    const { records } = await queryAuditRecords({
      organizationId: 'deployment',
      since: since.toISOString(),
      until: new Date(Date.now() + 60_000).toISOString(),
      limit: 1000,
      maxPages: 10,
    });
    const operations = records
      .filter((record) => record.actor_id === `console:${operator.adminId}`)
      .map((record) => [record.operation, record.outcome]);
    expect(operations).toContainEqual(['POST /console/api/dead-letters/{queue}/redrive', 'success']);
    expect(operations).toContainEqual(['GET /console/api/dead-letters/{queue}', 'success']);

    const owner = await client.signedIn('owner');
    expect(refusal(await client.call('GET', '/dead-letters/webhooks', { session: owner }))).toEqual({
      status: 403,
      code: 'CON-003',
    });
    expect(
      refusal(await client.call('POST', '/dead-letters/push/redrive', { session: owner, body: {} })),
    ).toEqual({ status: 403, code: 'CON-003' });
    expect(refusal(await client.call('GET', '/dead-letters/elsewhere', { session: operator }))).toEqual({
      status: 404,
      code: 'CON-004',
    });
  }, 60_000);
});
