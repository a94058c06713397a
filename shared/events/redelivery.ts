import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { requireEnv } from '#shared/config';
import { queueClient, sendToDeadLetters } from '#shared/events/queue-client';
import { queuedMessageBody, type WebhookEvent } from '#shared/events/webhook-event';

const queueUrl = requireEnv('WEBHOOK_QUEUE_URL');
const deadLetterQueueUrl = requireEnv('WEBHOOK_DLQ_URL');

/**
 * Puts the event back for its next attempt after `delaySeconds`. A new message carries the attempt number, so the
 * count and the delay are the same on SQS and on the local engine; a failure here throws, and the message that is
 * being handled stays on the queue instead.
 */
export async function requeueEvent(
  event: WebhookEvent,
  attempt: number,
  delaySeconds: number,
): Promise<void> {
  await queueClient.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: queuedMessageBody(event, attempt),
      DelaySeconds: delaySeconds,
    }),
  );
}

/** Moves a message to the DLQ with the reason, for an operator to read and re-drive. */
export async function deadLetter(body: string, reason: string): Promise<void> {
  await sendToDeadLetters(deadLetterQueueUrl, body, reason);
}
