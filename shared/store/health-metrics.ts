import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AuthOutcome,
  bucketStart,
  healthRetentionSeconds,
  latencyBucket,
  type PushProviderName,
} from '#shared/domain/health';
import { dynamo, tableName } from '#shared/store/dynamo';
import { itemKinds } from '#shared/store/item-kinds';
import type { ItemKey } from '#shared/store/keys';

/**
 * An organization's health counters: one item per 5-minute bucket and what it counts (a push provider's deliveries,
 * or the auth requests that ended), each a set of counters and a latency histogram (`h<index>`). Every event is one
 * UpdateItem that adds 1 to two counters: no read, no condition, and the TTL purges the bucket later.
 */
const healthPartition = (organizationId: string) => `${itemKinds.health.prefix}${organizationId}`;
const paddedBucket = (start: number) => String(start).padStart(11, '0');

export type HealthSubject =
  { readonly kind: 'push'; readonly provider: PushProviderName } | { readonly kind: 'auth' };

export const healthKey = (organizationId: string, start: number, subject: HealthSubject): ItemKey => ({
  pk: healthPartition(organizationId),
  sk: `B#${paddedBucket(start)}#${subject.kind === 'push' ? `push#${subject.provider}` : 'auth'}`,
});

/** Adds one event to its bucket: a counter by name, and, when it took a measured time, its latency histogram. */
async function addEvent(
  organizationId: string,
  subject: HealthSubject,
  counter: string,
  latencyMs: number | undefined,
  now: Date,
): Promise<void> {
  const start = bucketStart(Math.floor(now.getTime() / 1000));
  const histogram = latencyMs === undefined ? '' : `, #h :one`;
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: healthKey(organizationId, start, subject),
      UpdateExpression: `ADD #c :one${histogram} SET #ttl = :ttl`,
      ExpressionAttributeNames: {
        '#c': counter,
        '#ttl': 'ttl',
        ...(latencyMs === undefined ? {} : { '#h': `h${latencyBucket(latencyMs)}` }),
      },
      ExpressionAttributeValues: { ':one': 1, ':ttl': start + healthRetentionSeconds },
    }),
  );
}

export type PushCount = 'sent' | 'failed' | 'gone';

/** One push's answer from its provider (or its failure to reach it, with no latency). */
export const recordPushHealth = (
  organizationId: string,
  provider: PushProviderName,
  count: PushCount,
  latencyMs: number | undefined,
  now: Date,
) => addEvent(organizationId, { kind: 'push', provider }, count, latencyMs, now);

/** One auth request that ended; the latency is the time to its answer, for those the user answered. */
export const recordAuthHealth = (
  organizationId: string,
  outcome: AuthOutcome,
  latencyMs: number | undefined,
  now: Date,
) => addEvent(organizationId, { kind: 'auth' }, outcome, latencyMs, now);

/** One bucket's counters as stored. */
export interface HealthItem {
  readonly start: number;
  readonly subject: HealthSubject;
  readonly counts: Readonly<Record<string, number>>;
  readonly histogram: readonly number[];
}

/** Pages a range is read in at most: 7 days of buckets are well under this. */
export const maxHealthPages = 10;

/** An organization's buckets from `from` to `to` (bucket starts, inclusive), in at most `maxHealthPages` reads. */
export async function readHealth(
  organizationId: string,
  from: number,
  to: number,
): Promise<{ readonly items: HealthItem[]; readonly complete: boolean }> {
  const items: HealthItem[] = [];
  let start: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': healthPartition(organizationId),
          ':from': `B#${paddedBucket(from)}#`,
          ':to': `B#${paddedBucket(to)}#~`,
        },
        ExclusiveStartKey: start,
      }),
    );
    pages += 1;
    for (const item of page.Items ?? []) {
      const parsed = toHealthItem(item);
      if (parsed) items.push(parsed);
    }
    start = page.LastEvaluatedKey;
  } while (start && pages < maxHealthPages);
  return { items, complete: start === undefined };
}

function toHealthItem(item: Record<string, unknown>): HealthItem | undefined {
  const [, bucket, kind, provider] = String(item.sk).split('#');
  const subject: HealthSubject | undefined =
    kind === 'auth'
      ? { kind: 'auth' }
      : kind === 'push' && (provider === 'webpush' || provider === 'apns' || provider === 'fcm')
        ? { kind: 'push', provider }
        : undefined;
  if (!subject) return undefined;
  const counts: Record<string, number> = {};
  const histogram: number[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (typeof value !== 'number' || name === 'ttl') continue;
    const bin = /^h(\d+)$/.exec(name);
    if (bin) histogram[Number(bin[1])] = value;
    else counts[name] = value;
  }
  return { start: Number(bucket), subject, counts, histogram: Array.from(histogram, (count) => count ?? 0) };
}
