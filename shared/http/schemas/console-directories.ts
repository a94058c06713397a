import * as v from 'valibot';
import { displayName, httpUrl, uuid } from '#shared/http/schemas/common';

/**
 * POST /console/api/directories: a name unique in the organization; the operator, who belongs to none, names the
 * organization, which an organization's admin may leave out (their own is the only one they may name).
 */
export const consoleCreateDirectoryBody = v.strictObject({
  name: displayName,
  organization_id: v.optional(uuid),
});

/**
 * PATCH /console/api/directories/{id}: what the signed API's directory update changes, but the push credentials
 * (files larger than a console body, and sealed); null clears the webhook URL.
 */
export const consoleUpdateDirectoryBody = v.strictObject({
  active: v.optional(v.boolean()),
  webhook_url: v.optional(v.nullable(httpUrl)),
  denial_context_inquiry_enabled: v.optional(v.boolean()),
});
