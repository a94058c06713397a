import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { engineClientConfig } from '#infra/local/engines';
import { lambdaContext } from '#infra/local/lambda-context';

export type QueueFunction = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface QueuePollerOptions {
  readonly endpoint: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly functionName: string;
  readonly handler: QueueFunction;
  readonly batchSize: number;
  readonly functionTimeoutMs?: number;
  /** Pause after an empty receive, milliseconds. */
  readonly idleMs?: number;
  /** Batches handed to the function at once (the mapping's maximum concurrency; default 1). */
  readonly maxConcurrency?: number;
  /** How long a batch that is not full waits for more messages (the mapping's batching window; default none). */
  readonly batchingWindowMs?: number;
}

export interface QueuePoller {
  stop(): Promise<void>;
}

/**
 * Plays the SQS event source mapping with `reportBatchItemFailures`: receives a batch, invokes the function, deletes
 * what succeeded. Failed messages stay on the queue and come back when their visibility timeout ends; the queue's
 * redrive policy moves them to the DLQ after the maximum number of receives, as in AWS.
 */
export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const client = new SQSClient(engineClientConfig(options.endpoint));
  const abort = new AbortController();
  let stopped = false;

  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopped) {
      if (inFlight.size >= (options.maxConcurrency ?? 1)) {
        await Promise.race(inFlight);
        continue;
      }
      let messages: Message[];
      try {
        messages = await receiveBatch();
      } catch (error) {
        if (stopped) break;
        console.error(`${options.functionName}: receive failed`, error);
        await pause(1_000);
        continue;
      }
      if (messages.length === 0) {
        await pause(options.idleMs ?? 100);
        continue;
      }
      const delivery = deliver(messages)
        .catch((error: unknown) => console.error(`${options.functionName}: the delete failed`, error))
        .finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
    await Promise.all(inFlight);
  })();

  /** Up to a batch, gathered for up to the batching window once the first message is in. */
  async function receiveBatch(): Promise<Message[]> {
    const batch = await receive(options.batchSize);
    const windowEnds = Date.now() + (options.batchingWindowMs ?? 0);
    while (batch.length > 0 && batch.length < options.batchSize && Date.now() < windowEnds && !stopped) {
      const more = await receive(options.batchSize - batch.length);
      if (more.length === 0) await pause(Math.min(options.idleMs ?? 100, windowEnds - Date.now()));
      batch.push(...more);
    }
    return batch;
  }

  async function receive(count: number): Promise<Message[]> {
    const { Messages: messages = [] } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: count,
        // The local engine holds a long poll open until the batch is full, handing back messages whose
        // visibility ran out meanwhile a second time; real SQS answers as soon as it has any. Short polls
        // behave like the real thing.
        WaitTimeSeconds: 0,
        // The local engine reports receive counts only through the older attribute list.
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return messages;
  }

  async function pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  }

  async function deliver(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toRecord(message, options));
    let failed: Set<string>;
    try {
      const result = await options.handler(
        { Records: records },
        lambdaContext(options.functionName, options.functionTimeoutMs ?? 30_000),
      );
      failed = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (error) {
      console.error(`${options.functionName}: the batch failed`, error);
      failed = new Set(records.map((record) => record.messageId));
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length === 0) return;
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  }

  return {
    async stop() {
      stopped = true;
      abort.abort();
      await loop;
      client.destroy();
    },
  };
}

function toRecord(message: Message, options: QueuePollerOptions): SQSRecord {
  const attributes = (message.Attributes ?? {}) as Record<string, string>;
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn,
    awsRegion: process.env.AWS_REGION ?? 'us-east-1',
  };
}
