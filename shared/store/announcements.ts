import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { authRequestKey } from '#shared/store/keys';
import {
  announcementDueAttribute,
  announcementIndexName,
  announcementShardAttribute,
  announcementShardPrefix,
  announcementShards,
} from '#shared/store/table-definition';

/**
 * The update that marks a request's answer as due to be announced, for the answer's own write (no round trip of its
 * own): an expression fragment and its values.
 */
export function announcementDue(
  authId: string,
  nowSeconds: number,
): { readonly set: string; readonly values: Record<string, unknown> } {
  return {
    set: `${announcementShardAttribute} = :announceShard, ${announcementDueAttribute} = :announceDueAt`,
    values: { ':announceShard': shardOf(authId), ':announceDueAt': nowSeconds },
  };
}

const shardOf = (authId: string) => `${announcementShardPrefix}${authId.slice(0, 1).toLowerCase()}`;

/** A request whose answer was marked due at `dueAt` (epoch seconds) and is still marked. */
export interface DueAnnouncement {
  readonly authId: string;
  readonly dueAt: number;
}

/** Per shard and sweep: a backlog larger than this is taken over the following sweeps. */
const pageSize = 100;

/** The announcements marked due at or before `cutoff` (epoch seconds), oldest first in each shard. */
export async function dueAnnouncements(cutoff: number): Promise<DueAnnouncement[]> {
  const pages = await Promise.all(
    announcementShards.map((shard) =>
      dynamo.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: announcementIndexName,
          KeyConditionExpression: '#shard = :shard AND #due <= :cutoff',
          ExpressionAttributeNames: {
            '#shard': announcementShardAttribute,
            '#due': announcementDueAttribute,
          },
          ExpressionAttributeValues: { ':shard': `${announcementShardPrefix}${shard}`, ':cutoff': cutoff },
          Limit: pageSize,
        }),
      ),
    ),
  );
  return pages.flatMap(({ Items = [] }) =>
    Items.flatMap((item) => {
      const authId = /^AUTH#(.+)$/.exec(String(item.pk))?.[1];
      const dueAt: unknown = item[announcementDueAttribute];
      return authId && typeof dueAt === 'number' ? [{ authId, dueAt }] : [];
    }),
  );
}

/**
 * Takes a due announcement for this sweep: moves its due time to `nowSeconds`, only if no one cleared or took it
 * since it was read. True for the one sweep that got it; a sweep that dies after this leaves it due again one grace
 * period later.
 */
export async function claimAnnouncement(due: DueAnnouncement, nowSeconds: number): Promise<boolean> {
  return conditionally(
    new UpdateCommand({
      TableName: tableName,
      Key: authRequestKey(due.authId),
      UpdateExpression: 'SET #due = :now',
      ConditionExpression: '#due = :seen',
      ExpressionAttributeNames: { '#due': announcementDueAttribute },
      ExpressionAttributeValues: { ':now': nowSeconds, ':seen': due.dueAt },
    }),
  );
}

/** The answer's event is on the queue: nothing is due any more (no write when nothing was). */
export async function clearAnnouncement(authId: string): Promise<void> {
  await conditionally(
    new UpdateCommand({
      TableName: tableName,
      Key: authRequestKey(authId),
      UpdateExpression: 'REMOVE #shard, #due',
      ConditionExpression: 'attribute_exists(#shard)',
      ExpressionAttributeNames: { '#shard': announcementShardAttribute, '#due': announcementDueAttribute },
    }),
  );
}

async function conditionally(command: UpdateCommand): Promise<boolean> {
  try {
    await dynamo.send(command);
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
