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
import {
  announcementDueAttribute,
  announcementIndexName,
  announcementShardAttribute,
  partitionKeyName,
  sortKeyName,
} from '#shared/store/table-definition';

/**
 * Creates the table the way the CDK stack does, unless it exists already (a second start reuses `.data/`), with the
 * announcement index when asked. Returns whether the table has that index: the embedded engine cannot add an index
 * to a table made before it existed.
 */
export async function ensureTable(
  endpoint: string,
  tableName: string,
  withAnnouncementIndex = true,
): Promise<boolean> {
  const client = new DynamoDBClient(engineClientConfig(endpoint));
  try {
    const { status, indexed } = await client.send(new DescribeTableCommand({ TableName: tableName })).then(
      ({ Table }) => ({
        status: Table?.TableStatus,
        indexed: Boolean(
          Table?.GlobalSecondaryIndexes?.some((index) => index.IndexName === announcementIndexName),
        ),
      }),
      async (error: unknown) => {
        if (!(error instanceof ResourceNotFoundException)) throw error;
        await client.send(
          new CreateTableCommand({
            TableName: tableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [
              { AttributeName: partitionKeyName, AttributeType: 'S' },
              { AttributeName: sortKeyName, AttributeType: 'S' },
              ...(withAnnouncementIndex
                ? [
                    { AttributeName: announcementShardAttribute, AttributeType: 'S' as const },
                    { AttributeName: announcementDueAttribute, AttributeType: 'N' as const },
                  ]
                : []),
            ],
            KeySchema: [
              { AttributeName: partitionKeyName, KeyType: 'HASH' },
              { AttributeName: sortKeyName, KeyType: 'RANGE' },
            ],
            ...(withAnnouncementIndex
              ? {
                  GlobalSecondaryIndexes: [
                    {
                      IndexName: announcementIndexName,
                      KeySchema: [
                        { AttributeName: announcementShardAttribute, KeyType: 'HASH' },
                        { AttributeName: announcementDueAttribute, KeyType: 'RANGE' },
                      ],
                      Projection: { ProjectionType: 'KEYS_ONLY' },
                    },
                  ],
                }
              : {}),
          }),
        );
        return { status: undefined, indexed: withAnnouncementIndex };
      },
    );
    // The engine answers CreateTable while the table is still CREATING, and refuses items until it is ACTIVE.
    if (status !== 'ACTIVE')
      await waitUntilTableExists(
        { client, maxWaitTime: 10, minDelay: 0.01, maxDelay: 0.1 },
        { TableName: tableName },
      );
    return indexed;
  } finally {
    client.destroy();
  }
}

/**
 * The audit trail's table: a table of its own, as in the stack (infra/audit-store.ts), with the same key shape. The
 * embedded store has no TTL and no resource policy; what they enforce in AWS is tested against the synthesized stack.
 */
export async function ensureAuditTable(endpoint: string, tableName: string): Promise<void> {
  await ensureTable(endpoint, tableName, false);
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
