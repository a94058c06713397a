import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { engineClientConfig } from '#infra/local/engines';
import { pushQueue, webhookQueue } from '#infra/routes';
import { partitionKeyName, sortKeyName } from '#shared/store/table-definition';

/** Creates the table the way the CDK stack does, unless it exists already (a second start reuses `.data/`). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient(engineClientConfig(endpoint));
  try {
    const status = await client.send(new DescribeTableCommand({ TableName: tableName })).then(
      ({ Table }) => Table?.TableStatus,
      async (error: unknown) => {
        if (!(error instanceof ResourceNotFoundException)) throw error;
        await client.send(
          new CreateTableCommand({
            TableName: tableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [
              { AttributeName: partitionKeyName, AttributeType: 'S' },
              { AttributeName: sortKeyName, AttributeType: 'S' },
            ],
            KeySchema: [
              { AttributeName: partitionKeyName, KeyType: 'HASH' },
              { AttributeName: sortKeyName, KeyType: 'RANGE' },
            ],
          }),
        );
        return undefined;
      },
    );
    // The engine answers CreateTable while the table is still CREATING, and refuses items until it is ACTIVE.
    if (status !== 'ACTIVE')
      await waitUntilTableExists(
        { client, maxWaitTime: 10, minDelay: 0.01, maxDelay: 0.1 },
        { TableName: tableName },
      );
  } finally {
    client.destroy();
  }
}

export interface WebhookQueues {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** The webhook queue and its DLQ, with the redrive policy the stack gives them. */
export function ensureQueues(endpoint: string, prefix: string): Promise<WebhookQueues> {
  return ensureQueuePair(endpoint, `${prefix}-webhooks`, webhookQueue);
}

/** The push queue and its DLQ, likewise. */
export function ensurePushQueues(endpoint: string, prefix: string): Promise<WebhookQueues> {
  return ensureQueuePair(endpoint, `${prefix}-push`, pushQueue);
}

async function ensureQueuePair(
  endpoint: string,
  name: string,
  settings: { visibilityTimeoutSeconds: number; maxReceiveCount: number; deadLetterRetentionDays: number },
): Promise<WebhookQueues> {
  const client = new SQSClient(engineClientConfig(endpoint));
  try {
    const { QueueUrl: deadLetterQueueUrl } = await client.send(
      new CreateQueueCommand({
        QueueName: `${name}-dlq`,
        Attributes: { MessageRetentionPeriod: String(settings.deadLetterRetentionDays * 24 * 3600) },
      }),
    );
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }),
    );
    const { QueueUrl: queueUrl } = await client.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: {
          VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: Attributes?.QueueArn,
            maxReceiveCount: settings.maxReceiveCount,
          }),
        },
      }),
    );
    if (!queueUrl || !deadLetterQueueUrl) throw new Error('The local queue engine returned no queue URL');
    return { queueUrl, deadLetterQueueUrl };
  } finally {
    client.destroy();
  }
}
