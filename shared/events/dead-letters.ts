import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  deadLetterReasonAttribute,
  describeEvent,
  parseQueuedMessage,
  queuedMessageBody,
} from '#shared/events/webhook-event';
import { describePushEvent, parseQueuedPush, queuedPushBody } from '#shared/events/push-event';

export interface WebhookQueueUrls {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** A message in the DLQ as an operator sees it: what it was about and why it is there, nothing secret. */
export interface DeadLetter {
  readonly messageId: string;
  readonly event: Record<string, string> | null;
  readonly attempts: number | null;
  readonly reason: string;
  /** ISO 8601 UTC. */
  readonly sentAt: string | null;
}

/** How a queue's messages read: what names one, which attempt it is, and its body as a first attempt again. */
export interface QueuedMessageCodec {
  parse(
    body: string,
  ):
    | { readonly event: Record<string, string>; readonly attempt: number; readonly firstAttemptBody: string }
    | undefined;
}

export const webhookMessages: QueuedMessageCodec = {
  parse(body) {
    const queued = parseQueuedMessage(body);
    return (
      queued && {
        event: describeEvent(queued.event),
        attempt: queued.attempt,
        firstAttemptBody: queuedMessageBody(queued.event),
      }
    );
  },
};

export const pushMessages: QueuedMessageCodec = {
  parse(body) {
    const queued = parseQueuedPush(body);
    return (
      queued && {
        event: describePushEvent(queued.event),
        attempt: queued.attempt,
        firstAttemptBody: queuedPushBody(queued.event),
      }
    );
  },
};

/** How long a listing hides what it has read, so that one pass sees each message once. */
const listingVisibilitySeconds = 30;

/** Reads the DLQ without consuming it: each message is seen once, then becomes visible again. */
export async function listDeadLetters(
  client: SQSClient,
  urls: WebhookQueueUrls,
  max = 1000,
  codec: QueuedMessageCodec = webhookMessages,
): Promise<DeadLetter[]> {
  const seen = new Map<string, Message>();
  await receiveAll(client, urls.deadLetterQueueUrl, max, (message) => {
    seen.set(message.MessageId ?? '', message);
  });
  await Promise.all([...seen.values()].map((message) => release(client, urls.deadLetterQueueUrl, message)));
  return [...seen.values()].map((message) => describeDeadLetter(message, codec));
}

/**
 * Puts dead messages back on the webhook queue as first attempts (all of them, or those named) and removes them from
 * the DLQ; each is sent before it is deleted, so a failure leaves a message in one queue or both, never in neither.
 */
export async function redriveDeadLetters(
  client: SQSClient,
  urls: WebhookQueueUrls,
  messageIds?: ReadonlySet<string>,
  codec: QueuedMessageCodec = webhookMessages,
  max = 10_000,
): Promise<DeadLetter[]> {
  const moved: DeadLetter[] = [];
  const skipped: Message[] = [];
  await receiveAll(client, urls.deadLetterQueueUrl, max, async (message) => {
    if (messageIds && !messageIds.has(message.MessageId ?? '')) {
      skipped.push(message);
      return;
    }
    const queued = codec.parse(message.Body ?? '');
    // A message this service did not write goes back as it was; the worker will dead-letter it again, with its reason.
    const body = queued ? queued.firstAttemptBody : (message.Body ?? '');
    await client.send(new SendMessageCommand({ QueueUrl: urls.queueUrl, MessageBody: body }));
    await client.send(
      new DeleteMessageCommand({ QueueUrl: urls.deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
    moved.push(describeDeadLetter(message, codec));
  });
  await Promise.all(skipped.map((message) => release(client, urls.deadLetterQueueUrl, message)));
  return moved;
}

async function receiveAll(
  client: SQSClient,
  queueUrl: string,
  max: number,
  visit: (message: Message) => void | Promise<void>,
): Promise<void> {
  const seen = new Set<string>();
  // A short poll samples the queue: an empty answer is believed only twice in a row.
  for (let empty = 0; empty < 2 && seen.size < max;) {
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: listingVisibilitySeconds,
        WaitTimeSeconds: 0,
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const fresh = Messages.filter((message) => !seen.has(message.MessageId ?? ''));
    empty = fresh.length === 0 ? empty + 1 : 0;
    for (const message of fresh) {
      seen.add(message.MessageId ?? '');
      await visit(message);
    }
  }
}

async function release(client: SQSClient, queueUrl: string, message: Message): Promise<void> {
  await client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: message.ReceiptHandle,
      VisibilityTimeout: 0,
    }),
  );
}

function describeDeadLetter(message: Message, codec: QueuedMessageCodec): DeadLetter {
  const queued = codec.parse(message.Body ?? '');
  const sent = Number((message.Attributes as Record<string, string> | undefined)?.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    event: queued ? queued.event : null,
    attempts: queued?.attempt ?? null,
    reason:
      message.MessageAttributes?.[deadLetterReasonAttribute]?.StringValue ??
      'moved by the queue after too many receives (the worker failed outright)',
    sentAt: Number.isFinite(sent) ? new Date(sent).toISOString() : null,
  };
}
