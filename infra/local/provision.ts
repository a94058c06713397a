import {
  CreateTableCommand,
  type CreateTableCommandInput,
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
  const indexes = await ensureTableDefinition(endpoint, {
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
  });
  return indexes.includes(announcementIndexName);
}

/**
 * Creates a table from its definition unless one of its name exists, and waits until it takes items. Returns the
 * names of the table's indexes: a table made earlier keeps the ones it was made with.
 */
export async function ensureTableDefinition(
  endpoint: string,
  definition: CreateTableCommandInput,
): Promise<string[]> {
  const client = new DynamoDBClient(engineClientConfig(endpoint));
  try {
    const { status, indexes } = await client
      .send(new DescribeTableCommand({ TableName: definition.TableName }))
      .then(
        ({ Table }) => ({
          status: Table?.TableStatus,
          indexes: (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? ''),
        }),
        async (error: unknown) => {
          if (!(error instanceof ResourceNotFoundException)) throw error;
          await client.send(new CreateTableCommand(definition));
          return {
            status: undefined,
            indexes: (definition.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? ''),
          };
        },
      );
    // The engine answers CreateTable while the table is still CREATING, and refuses items until it is ACTIVE.
    if (status !== 'ACTIVE')
      await waitUntilTableExists(
        { client, maxWaitTime: 10, minDelay: 0.01, maxDelay: 0.1 },
        { TableName: definition.TableName },
      );
    return indexes;
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
  const deadLetters = await ensureQueue(endpoint, `${name}-dlq`, {
    MessageRetentionPeriod: String(settings.deadLetterRetentionDays * 24 * 3600),
  });
  const queue = await ensureQueue(endpoint, name, {
    VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: deadLetters.arn,
      maxReceiveCount: settings.maxReceiveCount,
    }),
  });
  return { queueUrl: queue.url, deadLetterQueueUrl: deadLetters.url };
}

/** A queue of the local engine with these attributes (made, or found as it was made): its URL and ARN. */
export async function ensureQueue(
  endpoint: string,
  name: string,
  attributes: Record<string, string>,
): Promise<{ url: string; arn: string }> {
  const client = new SQSClient(engineClientConfig(endpoint));
  try {
    const { QueueUrl: url } = await client.send(
      new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
    );
    if (!url) throw new Error('The local queue engine returned no queue URL');
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    if (!Attributes?.QueueArn) throw new Error(`The local queue engine gave ${name} no ARN`);
    return { url, arn: Attributes.QueueArn };
  } finally {
    client.destroy();
  }
}
