import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { requireEnv } from '#shared/config';
import { serviceUnavailable } from '#shared/errors';
import { queueClient } from '#shared/events/queue-client';
import { queuedMessageBody, type WebhookEvent } from '#shared/events/webhook-event';

const queueUrl = requireEnv('WEBHOOK_QUEUE_URL');

/**
 * Puts an event on the webhook queue. A failure fails the request that caused it (503), so the caller retries: the
 * state change it announces is idempotent, and the event is then enqueued once more at most.
 */
export async function publishEvent(event: WebhookEvent): Promise<void> {
  try {
    await queueClient.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: queuedMessageBody(event) }),
    );
  } catch (error) {
    throw serviceUnavailable('The event could not be queued; retry the request', error);
  }
}
