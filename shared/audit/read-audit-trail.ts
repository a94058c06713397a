import type { AuditOutcome, AuditRecord } from '#shared/audit/audit-record';
import { queryAuditRecords } from '#shared/store/audit-records';

export interface AuditTrailQuery {
  readonly organizationIds: readonly string[];
  /** ISO 8601 instants: from `since` (inclusive) to `until` (exclusive). */
  readonly since: Date;
  readonly until: Date;
  readonly user?: string | undefined;
  readonly serviceId?: string | undefined;
  readonly outcome?: AuditOutcome | undefined;
}

/**
 * Every record of the organizations named in a time range, oldest first, for the operator (`admin audit`), who reads
 * the table directly and whose range is not bounded. A table that does not exist yet (a data directory from before
 * the audit trail) holds no records.
 */
export async function readAuditTrail(query: AuditTrailQuery): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  for (const organizationId of query.organizationIds) {
    let after: string | undefined;
    do {
      const page = await queryAuditRecords({
        organizationId,
        since: query.since.toISOString(),
        until: query.until.toISOString(),
        ...(query.user === undefined ? {} : { user: query.user }),
        ...(query.serviceId === undefined ? {} : { serviceId: query.serviceId }),
        ...(query.outcome === undefined ? {} : { outcome: query.outcome }),
        ...(after === undefined ? {} : { after }),
        limit: 1000,
        maxPages: 10,
      }).catch((error: unknown) => {
        if ((error as Error | undefined)?.name === 'ResourceNotFoundException') return { records: [] };
        throw error;
      });
      records.push(...page.records);
      after = 'next' in page ? page.next : undefined;
    } while (after !== undefined);
  }
  return records.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}
