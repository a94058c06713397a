import { listAuditRecords } from '#shared/audit/list-audit-records';
import { ok } from '#shared/http/reply';
import { listAuditRecordsBody } from '#shared/http/schemas/audit';
import { signedHandler } from '#shared/http/signed-handler';

/**
 * POST /organization/v3/audit/list: the organization's audit trail, a time range at a time (an extension: no SDK
 * calls it). Only an organization key reads it, and only its own organization's records.
 */
export const handler = signedHandler({
  subject: 'org',
  body: listAuditRecordsBody,
  handle: async ({ caller, body }) => ok(await listAuditRecords(caller.subject.id, body)),
});
