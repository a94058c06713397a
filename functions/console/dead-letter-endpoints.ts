import * as v from 'valibot';
import { requireEnv } from '#shared/config';
import {
  type DeadLetter,
  listDeadLetters,
  pushMessages,
  type QueuedMessageCodec,
  redriveDeadLetters,
  type WebhookQueueUrls,
} from '#shared/events/dead-letters';
import { queueClient } from '#shared/events/queue-client';
import { ApiError } from '#shared/errors';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { webhookMessages } from '#shared/events/dead-letters';

/**
 * Most dead letters one answer lists or one redrive moves: a bounded read of a queue that holds every tenant's
 * messages, well inside API Gateway's 29 s. More are listed or moved by asking again (or with the admin CLI).
 */
export const maxConsoleDeadLetters = 100;

const queues: Readonly<Record<string, { codec: QueuedMessageCodec; urls: () => WebhookQueueUrls }>> = {
  webhooks: {
    codec: webhookMessages,
    urls: () => ({
      queueUrl: requireEnv('WEBHOOK_QUEUE_URL'),
      deadLetterQueueUrl: requireEnv('WEBHOOK_DLQ_URL'),
    }),
  },
  push: {
    codec: pushMessages,
    urls: () => ({ queueUrl: requireEnv('PUSH_QUEUE_URL'), deadLetterQueueUrl: requireEnv('PUSH_DLQ_URL') }),
  },
};

function queueOf(name: string | undefined) {
  const queue = name === undefined ? undefined : queues[name];
  if (!queue) throw new ApiError('CON-004', 'No such queue: webhooks or push');
  return queue;
}

/** A dead letter as the admin CLI prints it: what it was about (ids, never a package or a secret), attempts, why. */
const view = (letter: DeadLetter) => ({
  message_id: letter.messageId,
  event: letter.event,
  attempts: letter.attempts,
  reason: letter.reason,
  sent_at: letter.sentAt,
});

/** The body of a redrive: the messages to put back, or none for all (up to the bound). */
export const consoleRedriveBody = v.strictObject({
  message_ids: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100, 'must be at most 100 characters'))),
      v.minLength(1, 'must name at least one message, or be left out for all'),
      v.maxLength(maxConsoleDeadLetters, `must name at most ${maxConsoleDeadLetters} messages`),
    ),
  ),
});

/**
 * The operator's dead letters of both queues (docs/console.md#dead-letters), as `webhooks dead-letters` and
 * `push dead-letters` of the admin CLI: they hold every tenant's messages, so they are the deployment's. Each listing
 * and each redrive is an audit record of the operator's.
 */
export const deadLetterEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/dead-letters/{queue}',
    needs: 'deployment',
    schema: undefined,
    handle: async ({ parameters }) => {
      const queue = queueOf(parameters.queue);
      const letters = await listDeadLetters(queueClient, queue.urls(), maxConsoleDeadLetters, queue.codec);
      return {
        status: 200,
        body: { queue: parameters.queue, dead_letters: letters.map(view), max: maxConsoleDeadLetters },
        // Reading what every tenant's failed messages were about is recorded, as a change is.
        changed: true,
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/dead-letters/{queue}/redrive',
    needs: 'deployment',
    schema: consoleRedriveBody,
    handle: async ({ parameters, body }) => {
      const queue = queueOf(parameters.queue);
      const moved = await redriveDeadLetters(
        queueClient,
        queue.urls(),
        body.message_ids ? new Set(body.message_ids) : undefined,
        queue.codec,
        maxConsoleDeadLetters,
      );
      return { status: 200, body: { queue: parameters.queue, redriven: moved.map(view) } };
    },
  }),
];
