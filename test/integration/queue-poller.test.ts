import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig, type LocalEngines, startEngines } from '#infra/local/engines';
import { type QueueFunction, type QueuePoller, startQueuePoller } from '#infra/local/queue-poller';

let dataDir: string;
let engines: LocalEngines;
let sqs: SQSClient;
const pollers: QueuePoller[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-queue-'));
  engines = await startEngines(dataDir);
  sqs = new SQSClient(engineClientConfig(engines.sqsEndpoint));
});
afterAll(async () => {
  await Promise.all(pollers.map((poller) => poller.stop()));
  sqs?.destroy();
  await engines?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function queuePair(name: string, maxReceiveCount: number) {
  const { QueueUrl: dlqUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const { QueueUrl: queueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount }),
      },
    }),
  );
  return {
    queueUrl: queueUrl as string,
    dlqUrl: dlqUrl as string,
    queueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
  };
}

/** Feeds a queue to a handler the way the event source mapping would, until the file's tests end. */
function poll(queue: { queueUrl: string; queueArn: string }, handler: QueueFunction): void {
  pollers.push(
    startQueuePoller({
      endpoint: engines.sqsEndpoint,
      ...queue,
      functionName: 'test',
      handler,
      batchSize: 10,
    }),
  );
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function drain(queueUrl: string): Promise<string[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
  );
  return Messages.map((message) => message.Body ?? '');
}

describe('the local queue poller (the event source mapping of the webhook worker)', () => {
  it('deletes what succeeded, retries reported failures with their receive count, and dead-letters the hopeless', async () => {
    const { queueUrl, dlqUrl, queueArn } = await queuePair('partial', 2);
    const deliveries: { body: string; receiveCount: string }[] = [];
    const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const failures = [];
      for (const record of event.Records) {
        deliveries.push({ body: record.body, receiveCount: record.attributes.ApproximateReceiveCount });
        const seen = deliveries.filter((delivery) => delivery.body === record.body).length;
        if (record.body === 'always-fails' || (record.body === 'fails-once' && seen === 1)) {
          failures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures: failures };
    };
    poll({ queueUrl, queueArn }, handler);
    for (const body of ['ok', 'fails-once', 'always-fails']) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }

    await until(() => deliveries.filter((delivery) => delivery.body === 'always-fails').length === 2);
    await until(async () => (await drainOnce(dlqUrl)).includes('always-fails'));
    const count = (body: string) =>
      deliveries.filter((delivery) => delivery.body === body).map((d) => d.receiveCount);
    expect(count('ok')).toEqual(['1']);
    expect(count('fails-once')).toEqual(['1', '2']);
    expect(count('always-fails')).toEqual(['1', '2']);
    // Nothing is left on the source queue: successes were deleted, the failure moved on.
    expect(await drain(queueUrl)).toEqual([]);
  });

  it('retries the whole batch when the function throws', async () => {
    const { queueUrl, queueArn } = await queuePair('throws', 5);
    let calls = 0;
    const received: string[] = [];
    const handler = async (event: SQSEvent): Promise<undefined> => {
      calls += 1;
      if (calls === 1) throw new Error('cold start failed');
      received.push(...event.Records.map((record) => record.body));
      return undefined;
    };
    poll({ queueUrl, queueArn }, handler);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'again' }));
    await until(() => received.includes('again'));
    expect(calls).toBe(2);
  });
});

const dlqSeen: string[] = [];
async function drainOnce(dlqUrl: string): Promise<string[]> {
  dlqSeen.push(...(await drain(dlqUrl)));
  return dlqSeen;
}
