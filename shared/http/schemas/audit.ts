import * as v from 'valibot';
import { auditOutcomes, maxAuditPage } from '#shared/audit/audit-record';
import { isoDate, uuid } from '#shared/http/schemas/common';
import { identifier } from '#shared/http/schemas/users';

/** POST /organization/v3/audit/list: a time range of the organization's audit trail, filtered, a page at a time. */
export const listAuditRecordsBody = v.strictObject({
  since: isoDate,
  until: isoDate,
  user: v.optional(identifier),
  service: v.optional(uuid),
  outcome: v.optional(v.picklist(auditOutcomes, `must be one of ${auditOutcomes.join(', ')}`)),
  // A cursor this endpoint gave: base64url of an organization id and a record key, well under 256 characters.
  cursor: v.optional(v.pipe(v.string(), v.maxLength(256, 'must be at most 256 characters'))),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be a whole number'),
      v.minValue(1, `must be 1 to ${maxAuditPage}`),
      v.maxValue(maxAuditPage, `must be 1 to ${maxAuditPage}`),
    ),
  ),
});
