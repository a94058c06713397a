import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { addMiddleware } from '#test/support/sdk-faults';
import { refusal } from '#test/support/tree';
import { serviceWebhooks } from '#test/support/service-webhooks';
import type { WebhookReceiver } from '#test/support/webhook-receiver';

/**
 * A handler that dies between an answer's write and its event's send: the webhook queue refuses every send while the
 * device answers, so the answer is stored and its event never leaves the function. The announcement sweep, run by
 * the local runtime as EventBridge runs it in AWS (here every quarter second, with a two-second grace), sends it.
 */
const graceSeconds = 2;

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;
let receiver: WebhookReceiver;
/** While set, every SendMessage to the webhook queue fails as if the queue were down. */
let webhookQueueDown = false;

beforeAll(async () => {
  process.env.ANNOUNCEMENT_GRACE_SECONDS = String(graceSeconds);
  process.env.ANNOUNCEMENT_SWEEP_INTERVAL_MS = '250';
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  alice = await scene.linkDevice('alice');
  receiver = await serviceWebhooks(runtime, scene);
  const { queueClient } = await import('#shared/events/queue-client');
  const webhookQueueUrl = runtime.runtime.queues.queueUrl;
  addMiddleware(
    queueClient,
    (next: (args: { input: { QueueUrl?: string } }) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: { QueueUrl?: string } }) => {
        if (
          webhookQueueDown &&
          context.commandName === 'SendMessageCommand' &&
          args.input.QueueUrl === webhookQueueUrl
        )
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
        return next(args);
      },
    { step: 'initialize', name: 'webhookQueueDown' },
  );
});
afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
  delete process.env.ANNOUNCEMENT_GRACE_SECONDS;
  delete process.env.ANNOUNCEMENT_SWEEP_INTERVAL_MS;
});

async function answerPending(): Promise<string> {
  const [pending] = await alice.pending();
  if (!pending) throw new Error('nothing pending');
  await alice.answer(pending, { approve: true });
  return pending.auth_request;
}

/** The webhooks received so far for one answer, by its encrypted package. */
const webhooksFor = (authJwe: unknown) => receiver.received.filter((each) => each.body.auth_jwe === authJwe);

describe('an answer whose handler dies between its write and its event', () => {
  it('still reaches the webhook, once, and the poll answers; an answer announced normally is never sent again', async () => {
    const announced = await scene.ask({ username: 'alice' });
    await answerPending();
    const announcedRead = await scene.read(announced.auth_request);
    await receiver.waitFor((each) => each.body.auth_jwe === announcedRead.body?.auth_jwe);

    const lost = await scene.ask({ username: 'alice' });
    webhookQueueDown = true;
    // The device's answer is stored, its event is not sent, and the device gives up.
    expect(await refusal(answerPending())).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
    webhookQueueDown = false;

    const read = await scene.read(lost.auth_request);
    expect(read.status).toBe(200);
    const webhook = await receiver.waitFor(
      (each) => each.body.auth_jwe === read.body?.auth_jwe,
      (graceSeconds + 10) * 1000,
    );
    expect(webhook.body.type).toBe('AUTHORIZATION_RESPONSE');

    // Sweeps go on for more than a grace period after the sweep that sent it: neither answer is sent again.
    await new Promise((resolve) => setTimeout(resolve, (graceSeconds + 1) * 1000));
    expect(webhooksFor(read.body?.auth_jwe)).toHaveLength(1);
    expect(webhooksFor(announcedRead.body?.auth_jwe)).toHaveLength(1);
  }, 60_000);

  it('is sent once the queue is back, when the queue was still down at the sweeps in between', async () => {
    const lost = await scene.ask({ username: 'alice' });
    webhookQueueDown = true;
    expect(await refusal(answerPending())).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
    // The queue stays down past the grace period: sweeps claim the answer and fail to send it.
    await new Promise((resolve) => setTimeout(resolve, (graceSeconds + 1) * 1000));
    webhookQueueDown = false;
    const read = await scene.read(lost.auth_request);
    expect(read.status).toBe(200);
    await receiver.waitFor((each) => each.body.auth_jwe === read.body?.auth_jwe, (graceSeconds + 10) * 1000);
    expect(webhooksFor(read.body?.auth_jwe)).toHaveLength(1);
  }, 60_000);
});
