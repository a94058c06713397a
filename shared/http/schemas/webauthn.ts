import * as v from 'valibot';

/**
 * WebAuthn's JSON forms as browsers send them (`PublicKeyCredential.toJSON()`), each byte string and list bounded so
 * that nothing costly is done with more than an authenticator can make.
 */

/** Base64url of at most `max` characters (padding tolerated), as WebAuthn's JSON encodes its byte strings. */
const webauthnBytes = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max, `must be at most ${max} characters of base64url`),
    v.regex(/^[A-Za-z0-9_-]*={0,2}$/, 'must be base64url'),
  );

/** A credential id: WebAuthn allows up to 1 023 bytes, 1 364 characters of base64url. */
const credentialId = webauthnBytes(1366);

/**
 * What a browser reports of the extensions it ran: an object, kept to 1 KB of JSON (passkeys report a few flags), and
 * never read.
 */
const clientExtensionResults = v.pipe(
  v.unknown(),
  v.check(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Buffer.byteLength(JSON.stringify(value)) <= 1024,
    'must be an object of at most 1024 bytes of JSON',
  ),
);

const credentialFields = {
  id: credentialId,
  rawId: credentialId,
  authenticatorAttachment: v.optional(
    v.picklist(['platform', 'cross-platform'], 'must be "platform" or "cross-platform"'),
  ),
  clientExtensionResults,
  type: v.picklist(['public-key'], 'must be "public-key"'),
};

/**
 * A browser's `PublicKeyCredential.toJSON()` after `navigator.credentials.create()` (RegistrationResponseJSON): with
 * attestation "none" its attestation object holds the authenticator data and the public key, a few hundred bytes.
 */
export const passkeyRegistration = v.strictObject({
  ...credentialFields,
  response: v.strictObject({
    clientDataJSON: webauthnBytes(4096),
    attestationObject: webauthnBytes(8192),
    authenticatorData: v.optional(webauthnBytes(8192)),
    transports: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string(),
            v.maxLength(32, 'must be at most 32 characters'),
            v.regex(/^[a-z-]+$/, 'must be a transport name'),
          ),
        ),
        v.maxLength(8, 'must be at most 8 transports'),
      ),
    ),
    publicKeyAlgorithm: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a COSE algorithm'),
        v.minValue(-65_536, 'must be a COSE algorithm'),
        v.maxValue(65_535, 'must be a COSE algorithm'),
      ),
    ),
    publicKey: v.optional(webauthnBytes(2048)),
  }),
});

/**
 * A browser's `PublicKeyCredential.toJSON()` after `navigator.credentials.get()` (AuthenticationResponseJSON): the
 * passkey's assertion over the challenge GET /device/v3/auths gave with the request.
 */
export const passkeyAssertion = v.strictObject({
  ...credentialFields,
  response: v.strictObject({
    clientDataJSON: webauthnBytes(4096),
    authenticatorData: webauthnBytes(4096),
    // A DER ECDSA signature is about 72 bytes, an RSA-4096 one 512: 683 characters.
    signature: webauthnBytes(1024),
    userHandle: v.optional(webauthnBytes(88)),
  }),
});
