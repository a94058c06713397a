import * as v from 'valibot';
import { flag, optionalNullable, promptText, seconds, uuid } from '#shared/http/schemas/common';
import { identifier } from '#shared/http/schemas/users';
import { passkeyAssertion } from '#shared/http/schemas/webauthn';

/**
 * A directory user's identifier, or a user_push_id. Null is what an SDK sends when the application has no identifier
 * for the user; it names nobody, so it is answered like an unknown user (404), not as a malformed request.
 */
const username = v.nullable(identifier);

const denialReason = v.strictObject({
  id: v.pipe(
    v.string(),
    v.minLength(1, 'must be 1 to 5 characters'),
    v.maxLength(5, 'must be 1 to 5 characters'),
  ),
  reason: v.pipe(v.string(), v.minLength(1, 'must not be empty'), promptText(500)),
  fraud: flag,
});

const unique = <T>(values: readonly T[]) => new Set(values).size === values.length;

/** docs/protocol.md#limits: two or more, ids and reasons unique, at least one marked as fraud. An empty list means none. */
const denialReasons = v.pipe(
  v.array(denialReason),
  v.check((reasons) => reasons.length === 0 || reasons.length >= 2, 'must have at least 2 entries'),
  v.maxLength(25, 'must have at most 25 entries'),
  v.check((reasons) => unique(reasons.map((reason) => reason.id)), 'ids must be unique'),
  v.check((reasons) => unique(reasons.map((reason) => reason.reason)), 'reasons must be unique'),
  v.check(
    (reasons) => reasons.length === 0 || reasons.some((reason) => reason.fraud),
    'at least one must have fraud true',
  ),
);

export const createAuthRequestBody = v.strictObject({
  username,
  context: optionalNullable(promptText(400, { multiline: true })),
  title: optionalNullable(promptText(200)),
  ttl: optionalNullable(seconds(30, 600)),
  push_title: optionalNullable(promptText(200)),
  push_body: optionalNullable(promptText(1000, { multiline: true })),
  denial_reasons: optionalNullable(denialReasons),
  policy: v.optional(v.unknown()),
  /** Extension: the 201 carries a code the application shows and the user types on the device. */
  number_matching: optionalNullable(flag),
});

export const startSessionBody = v.strictObject({
  username,
  auth_request: optionalNullable(uuid),
});

export const usernameBody = v.strictObject({
  username,
});

export const verifyTotpBody = v.strictObject({
  identifier,
  otp: v.pipe(v.string(), v.maxLength(16, 'must be at most 16 characters')),
});

/** A compact JWE: five base64url segments. */
const compactJwe = v.pipe(
  v.string(),
  v.maxLength(65_536, 'is too long'),
  v.regex(/^[\w-]+\.[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+$/, 'must be a compact JWE'),
);
const base64Package = v.pipe(
  v.string(),
  v.maxLength(4096, 'is too long'),
  v.regex(/^[A-Za-z0-9+/=\s]+$/, 'must be base64'),
);

/**
 * The user's denial said in the clear, for a request with number matching answered without its code: the service
 * writes the DENIED package itself (docs/protocol.md#number-matching).
 */
const clearDenial = v.strictObject({
  denial_reason: optionalNullable(denialReason.entries.id),
  fraud: optionalNullable(flag),
});

export const answerAuthRequestBody = v.pipe(
  v.strictObject({
    auth_jwe: v.optional(compactJwe),
    auth: optionalNullable(base64Package),
    auth_v1: optionalNullable(base64Package),
    /** Extension: the user denied with a reason marked fraud, which the sealed packages hide from the service. */
    fraud: optionalNullable(flag),
    /** Extension: the code the user typed, for a request created with `number_matching`. */
    number_match_code: optionalNullable(v.pipe(v.string(), v.regex(/^\d{1,8}$/, 'must be 1 to 8 digits'))),
    /** Extension: a denial without the code of a request with number matching, instead of the sealed packages. */
    deny: optionalNullable(clearDenial),
    /** Extension: the device's passkey assertion, which a device with a passkey sends with every answer. */
    webauthn: optionalNullable(passkeyAssertion),
  }),
  v.check(
    (body) => (body.auth_jwe === undefined) !== (body.deny == null),
    'must carry either auth_jwe (the sealed answer) or deny (a denial without the code), not both',
  ),
  v.check(
    (body) =>
      body.deny == null ||
      (body.auth == null && body.auth_v1 == null && body.number_match_code == null && body.fraud == null),
    'deny goes without auth, auth_v1, fraud and number_match_code: the service writes the denial itself',
  ),
);
