import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditOutcome, type AuditRecord, defaultAuditRetentionDays } from '#shared/audit/audit-record';
import { requireEnv } from '#shared/config';
import { dynamo } from '#shared/store/dynamo';
import { partitionKeyName, sortKeyName, timeToLiveAttribute } from '#shared/store/table-definition';

/**
 * The audit trail's own table (AUDIT_TABLE_NAME): one partition per organization, `ORG#<id>`, and a sort key
 * `<ISO time>#<random>`, so that one Query by time range answers for an organization, oldest first. The random part
 * (128 bits) makes a record's key impossible to guess: the API functions may only put items (no read), so they can
 * neither find a record to overwrite nor name one by chance; only the reader may Query.
 */
export function auditTableName(): string {
  // Read on use, not at load: only functions granted the audit trail carry the variable.
  return requireEnv('AUDIT_TABLE_NAME');
}

/** The table key of a record written at `time`. */
export function auditRecordKey(organizationId: string, time: string): Record<string, string> {
  return {
    [partitionKeyName]: organizationPartition(organizationId),
    [sortKeyName]: `${time}#${randomBytes(16).toString('base64url')}`,
  };
}

function organizationPartition(organizationId: string): string {
  return `ORG#${organizationId}`;
}

/** Appends a record; it is purged `retentionDays` after its time (AUDIT_RETENTION_DAYS, default 400). */
export async function appendAuditRecord(record: AuditRecord): Promise<void> {
  const retentionDays = Number(process.env.AUDIT_RETENTION_DAYS) || defaultAuditRetentionDays;
  const expires = Math.floor(Date.parse(record.time) / 1000) + retentionDays * 86_400;
  await dynamo.send(
    new PutCommand({
      TableName: auditTableName(),
      Item: {
        ...record,
        ...auditRecordKey(record.organization_id, record.time),
        [timeToLiveAttribute]: expires,
      },
      // A well-behaved writer never replaces a record, even on a (128-bit) collision.
      ConditionExpression: `attribute_not_exists(${sortKeyName})`,
    }),
  );
}

export interface AuditRecordQuery {
  readonly organizationId: string;
  /** ISO 8601 instants: records at or after `since` and before `until`. */
  readonly since: string;
  readonly until: string;
  readonly user?: string;
  readonly serviceId?: string;
  readonly outcome?: AuditOutcome;
  /** `actor_id`, as records name it: `console:<admin>`, `admin-cli:<account>`, an entity's id. */
  readonly actorId?: string;
  /** `operation`, as records name it: `PATCH /console/api/directories/{id}`. */
  readonly operation?: string;
  /** Where the previous page ended (its `next`). */
  readonly after?: string;
  /** Most records to return. */
  readonly limit: number;
  /** Most store pages (1 MB each at most) to read for one answer; a page cut short by it says where to go on. */
  readonly maxPages: number;
}

export interface AuditRecordPage {
  readonly records: AuditRecord[];
  /** The sort key to continue after, when there may be more. */
  readonly next?: string;
}

/**
 * One organization's records in a time range, oldest first, filtered by user, service, outcome, actor and operation. The filters are
 * a FilterExpression on the one time-range Query rather than indexes: the range already narrows the read to one
 * organization's records of that period, an index per filter would double the writes of every request to save reads
 * of a log that is read rarely, and `maxPages` bounds what one answer may read.
 */
export async function queryAuditRecords(query: AuditRecordQuery): Promise<AuditRecordPage> {
  const filters: string[] = [];
  const names: Record<string, string> = { '#pk': partitionKeyName, '#sk': sortKeyName };
  const values: Record<string, unknown> = {
    ':pk': organizationPartition(query.organizationId),
    ':since': query.since,
    ':until': query.until,
  };
  const filterBy = (attribute: string, value: string | undefined) => {
    if (value === undefined) return;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    filters.push(`#${attribute} = :${attribute}`);
  };
  filterBy('user', query.user);
  filterBy('service_id', query.serviceId);
  filterBy('outcome', query.outcome);
  filterBy('actor_id', query.actorId);
  filterBy('operation', query.operation);

  const records: AuditRecord[] = [];
  let startAfter = query.after;
  for (let page = 0; page < query.maxPages; page++) {
    const { Items = [], LastEvaluatedKey } = await dynamo.send(
      new QueryCommand({
        TableName: auditTableName(),
        // BETWEEN keeps `until` exclusive: every key at `until` sorts after it, by its `#<random>` suffix.
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :since AND :until',
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(startAfter
          ? { ExclusiveStartKey: { [partitionKeyName]: values[':pk'], [sortKeyName]: startAfter } }
          : {}),
        Limit: Math.max(query.limit, 100),
      }),
    );
    for (const [index, item] of Items.entries()) {
      records.push(recordOf(item));
      if (records.length === query.limit) {
        const more = index < Items.length - 1 || LastEvaluatedKey !== undefined;
        return more ? { records, next: item[sortKeyName] as string } : { records };
      }
    }
    startAfter = LastEvaluatedKey?.[sortKeyName] as string | undefined;
    if (!startAfter) return { records };
  }
  return { records, next: startAfter };
}

/** A stored item without its table attributes. */
function recordOf(item: Record<string, unknown>): AuditRecord {
  const { [partitionKeyName]: _pk, [sortKeyName]: _sk, [timeToLiveAttribute]: _ttl, ...record } = item;
  return record as unknown as AuditRecord;
}
