import * as v from 'valibot';
import { isoDate } from '#shared/http/schemas/common';
import { publicKey } from '#shared/http/schemas/keys';

/**
 * POST /console/api/{organizations|directories|services}/{id}/keys: a public key, as the signed API adds one. The
 * console's pages may make the key pair in the browser; only the public half ever comes here.
 */
export const consoleAddKeyBody = v.strictObject({
  public_key: publicKey,
  date_expires: v.optional(v.nullable(isoDate)),
  active: v.optional(v.boolean()),
  key_type: v.optional(v.picklist([0, 1, 2], 'must be 0 (both), 1 (encryption) or 2 (signature)')),
});

/** PATCH /console/api/…/keys/{kid}: activate, deactivate, or set or clear (null) the expiry. */
export const consoleUpdateKeyBody = v.strictObject({
  active: v.optional(v.boolean()),
  date_expires: v.optional(v.nullable(isoDate)),
});
