import { type AuditOutcome, type AuditRecord, maxAuditRangeDays } from '#shared/audit/audit-record';
import { invalidArgument } from '#shared/errors';
import { queryAuditRecords } from '#shared/store/audit-records';

const defaultAuditPage = 100;
/** Store pages (1 MB each at most) one answer reads before it hands back a cursor. */
const maxStorePages = 10;

export interface AuditRecordsRequest {
  readonly since: string;
  readonly until: string;
  readonly user?: string | undefined;
  readonly service?: string | undefined;
  readonly outcome?: AuditOutcome | undefined;
  /** The console's filters beside the signed endpoint's: who acted, and which operation. */
  readonly actor?: string | undefined;
  readonly operation?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
}

export interface AuditRecordsAnswer {
  readonly records: AuditRecord[];
  /** Present when there may be more: send it back, with the same range and filters, for the next page. */
  readonly cursor?: string;
}

/**
 * One organization's audit records from `since` (inclusive) to `until` (exclusive), oldest first. The cursor names
 * the organization it was made for, so that it is refused anywhere else, and the record it continues after, which
 * must lie in the range asked.
 */
export async function listAuditRecords(
  organizationId: string,
  request: AuditRecordsRequest,
): Promise<AuditRecordsAnswer> {
  // Stored times have milliseconds: compare like with like.
  const since = new Date(request.since).toISOString();
  const until = new Date(request.until).toISOString();
  if (until <= since) throw invalidArgument('until: must be later than since');
  if (Date.parse(until) - Date.parse(since) > maxAuditRangeDays * 86_400_000)
    throw invalidArgument(`until: must be at most ${maxAuditRangeDays} days after since`);
  const after =
    request.cursor === undefined ? undefined : cursorKey(request.cursor, organizationId, since, until);
  const page = await queryAuditRecords({
    organizationId,
    since,
    until,
    ...(request.user === undefined ? {} : { user: request.user }),
    ...(request.service === undefined ? {} : { serviceId: request.service }),
    ...(request.outcome === undefined ? {} : { outcome: request.outcome }),
    ...(request.actor === undefined ? {} : { actorId: request.actor }),
    ...(request.operation === undefined ? {} : { operation: request.operation }),
    ...(after === undefined ? {} : { after }),
    limit: request.limit ?? defaultAuditPage,
    maxPages: maxStorePages,
  });
  return {
    records: page.records,
    ...(page.next === undefined ? {} : { cursor: makeCursor(organizationId, page.next) }),
  };
}

const recordKeyPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[A-Za-z0-9_-]{22}$/;

function makeCursor(organizationId: string, key: string): string {
  return Buffer.from(JSON.stringify({ o: organizationId, k: key })).toString('base64url');
}

function cursorKey(cursor: string, organizationId: string, since: string, until: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const { o, k } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    o?: unknown;
    k?: unknown;
  };
  if (o !== organizationId || typeof k !== 'string' || !recordKeyPattern.test(k) || k < since || k >= until)
    throw invalidArgument('cursor: is not one this query gave');
  return k;
}
