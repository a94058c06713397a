import { SendMessageCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { deadLetterReasonAttribute } from '#shared/events/webhook-event';
import { firstUseEstablished } from '#shared/first-use';
import { inRequestClientConfig } from '#shared/aws/in-request-client-config';
import { removeMiddleware } from '#shared/aws/lean-middleware';
import { traced } from '#shared/tracing';

/**
 * The queue client as every handler uses it: short timeouts, so a request that cannot enqueue fails fast and is retried
 * by its caller; each command's middleware resolved once, not on every send (its stack, the tracer's included, is
 * complete before the first). `config` goes over these settings (the tests' in-process transport).
 */
export function createQueueClient(config: SQSClientConfig = {}): SQSClient {
  const client = traced(new SQSClient({ ...inRequestClientConfig(), cacheMiddleware: true, ...config }));
  // As the store's client: the logger's and the user agent's middleware cost CPU on every send for nothing we use.
  // Recursion detection stays: Lambda's loop detection reads the trace header it adds to each message.
  removeMiddleware(client, ['loggerMiddleware', 'getUserAgentMiddleware'], 'queue');

  // Every send announces a change, so it waits for its request's jti to be recorded (first-use.ts).
  client.middlewareStack.add(
    (next) => async (args) => {
      await firstUseEstablished();
      return next(args);
    },
    { step: 'initialize', name: 'awaitFirstUse' },
  );
  return client;
}

/** One client per process. */
export const queueClient = createQueueClient();

/** Moves a message to a dead-letter queue with the reason, for an operator to read and re-drive. */
export async function sendToDeadLetters(
  deadLetterQueueUrl: string,
  body: string,
  reason: string,
): Promise<void> {
  await queueClient.send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: body,
      MessageAttributes: {
        [deadLetterReasonAttribute]: { DataType: 'String', StringValue: reason.slice(0, 1000) },
      },
    }),
  );
}
