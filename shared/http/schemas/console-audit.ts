import * as v from 'valibot';
import { auditOutcomes, maxAuditPage } from '#shared/audit/audit-record';
import { isoDate, uuid } from '#shared/http/schemas/common';
import { identifier } from '#shared/http/schemas/users';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `must be at most ${max} characters`));

/**
 * GET /console/api/audit/records and /console/api/audit/export: the query string. A time range of at most 31 days,
 * the signed endpoint's filters (user, service, outcome) and the console's (actor, operation), each an exact match;
 * the operator names the organization, whose trail it is.
 */
export const consoleAuditQuery = v.strictObject({
  since: isoDate,
  until: isoDate,
  user: v.optional(identifier),
  service: v.optional(uuid),
  outcome: v.optional(v.picklist(auditOutcomes, `must be one of ${auditOutcomes.join(', ')}`)),
  // `console:<admin id>`, `admin-cli:<account>`, an entity's id: all far shorter.
  actor: v.optional(text(200)),
  // `PATCH /console/api/directories/{id}`: a method and a route.
  operation: v.optional(text(200)),
  organization_id: v.optional(uuid),
  cursor: v.optional(text(256)),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, `must be 1 to ${maxAuditPage}`),
      v.transform(Number),
      v.minValue(1, `must be 1 to ${maxAuditPage}`),
      v.maxValue(maxAuditPage, `must be 1 to ${maxAuditPage}`),
    ),
  ),
  format: v.optional(v.picklist(['json', 'csv'], 'must be json or csv')),
});
