import { auditRecordsCsv } from '#shared/audit/audit-csv';
import { maxAuditPage } from '#shared/audit/audit-record';
import { listAuditRecords } from '#shared/audit/list-audit-records';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import type { HttpEvent } from '#shared/http/event';
import { consoleAuditQuery } from '#shared/http/schemas/console-audit';
import { validateBody } from '#shared/http/schemas/validate-body';
import type { ConsoleSession } from '#shared/domain/console-session';
import { consoleOrganization } from '#shared/use-cases/console-scope';
import { actingSession } from '#functions/console/required-session';

/**
 * One page of the organization's audit trail for the query string's range and filters, through the signed audit
 * endpoint's own reading (shared/audit/list-audit-records.ts): its range bound, its paging, its cursor bound to the
 * organization. An admin reads their own organization's; the operator names one.
 */
async function auditPage(event: HttpEvent, session: ConsoleSession | undefined) {
  const query = validateBody(consoleAuditQuery, event.queryStringParameters ?? {});
  const organizationId = await consoleOrganization(actingSession(session), query.organization_id);
  const page = await listAuditRecords(organizationId, query);
  return { query, organizationId, page };
}

/**
 * Most records one export holds, read a page at a time: well inside a function's 6 MB answer. A longer range is
 * exported in parts (the JSON export says where to go on with its cursor; a narrower range does the same for CSV).
 */
const maxExportRecords = 5000;

/**
 * The audit trail in the console (docs/console.md#audit-trail): GET only, served by a function of its own that may
 * read the audit table and write none of it (infra/routes.ts `consoleAuditRoute`), as the signed reader is.
 */
export const auditEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/audit/records',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session }) => {
      const { page } = await auditPage(event, session);
      return { status: 200, body: page };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/audit/export',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session }) => {
      const { query, organizationId, page } = await auditPage(event, session);
      const records = [...page.records];
      let cursor = page.cursor;
      while (cursor !== undefined && records.length < maxExportRecords) {
        const next = await listAuditRecords(organizationId, { ...query, cursor, limit: maxAuditPage });
        records.push(...next.records);
        cursor = next.cursor;
      }
      const name = `audit-${organizationId}-${query.since.slice(0, 10)}`;
      return query.format === 'csv'
        ? {
            status: 200,
            download: {
              contentType: 'text/csv; charset=utf-8',
              filename: `${name}.csv`,
              text: auditRecordsCsv(records),
            },
          }
        : {
            status: 200,
            download: {
              contentType: 'application/json',
              filename: `${name}.json`,
              text: JSON.stringify({ records, ...(cursor === undefined ? {} : { cursor }) }),
            },
          };
    },
  }),
];
