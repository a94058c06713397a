import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { requireEnv } from '#shared/config';
import { queueClient, sendToDeadLetters } from '#shared/events/queue-client';
import { type PushEvent, queuedPushBody } from '#shared/events/push-event';

const queueUrl = requireEnv('PUSH_QUEUE_URL');
const deadLetterQueueUrl = requireEnv('PUSH_DLQ_URL');

/** Puts a push back for its next attempt after `delaySeconds`; the message carries the attempt number. */
export async function requeuePush(event: PushEvent, attempt: number, delaySeconds: number): Promise<void> {
  await queueClient.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: queuedPushBody(event, attempt),
      DelaySeconds: delaySeconds,
    }),
  );
}

/** Moves a push to the DLQ with the reason, for an operator to read and re-drive. */
export async function deadLetterPush(body: string, reason: string): Promise<void> {
  await sendToDeadLetters(deadLetterQueueUrl, body, reason);
}
