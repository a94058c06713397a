import type { KeyObject } from 'node:crypto';
import {
  decodeLegacyBase64,
  decryptOaepSha1Block,
  encodeBase64,
  encryptOaepSha1Block,
  maxOaepSha1Plaintext,
} from '#shared/protocol/legacy-rsa';
import {
  type LegacyAuthPackage,
  LegacyPackageError,
  legacyAuthPackageJson,
  type V1AuthPackage,
  type V1AuthPackageOptions,
  v1AuthPackageJson,
} from '#shared/protocol/legacy-package-seal';

export {
  LegacyPackageError,
  type LegacyAuthPackage,
  type V1AuthPackage,
  type V1AuthPackageOptions,
} from '#shared/protocol/legacy-package-seal';
export {
  buildV1Credentials,
  formatLaunchKeyTime,
  LegacyCredentialError,
  openV1SecretKey,
  parseLaunchKeyTime,
  v1SignatureHash,
  verifyV1Signature,
  type OpenedV1SecretKey,
  type V1Credentials,
  type V1CredentialsInput,
} from '#shared/protocol/legacy-credentials';
export { maxOaepSha1Plaintext, type LegacyFailureReason } from '#shared/protocol/legacy-rsa';

/**
 * The device's RSA `auth` packages: v1 poll's `auth` (docs/protocol.md#legacy-v1) and v3's deprecated `auth` (docs/protocol.md#answer-packages,
 * docs/protocol.md#answer-packages). Both are Base64 of a single RSA-OAEP block (SHA-1, MGF1-SHA1) of a JSON object, encrypted
 * to the Service's public key. That is what every v1 client decrypted with (PyCrypto `PKCS1_OAEP` in launchkey.py,
 * `PKCS1_OAEP_PADDING` in the Ruby gem, `OAEPWithSHA1AndMGF1Padding` in the Java SDK, phpseclib's default OAEP,
 * .NET `Decrypt(data, true)`) and what both v3 SDKs decrypt with; PKCS#1 v1.5 was never used.
 */

/** Device side: the v1 `auth` package encrypted to the Service's public key, Base64 in one line. */
export function encryptV1AuthPackage(
  pkg: V1AuthPackage,
  servicePublicKey: KeyObject,
  options: V1AuthPackageOptions = {},
): string {
  return sealJson(v1AuthPackageJson(pkg, options), servicePublicKey);
}

/** Implementer side: the JSON inside a v1 `auth` package. Line-wrapped Base64, as the v1 API sent it, is read too. */
export function decryptV1AuthPackage(auth: string, servicePrivateKey: KeyObject): unknown {
  return openJson(auth, servicePrivateKey);
}

/** Device side: the deprecated v3 `auth` package, one RSA-OAEP SHA-1 block, Base64. Throws when it does not fit. */
export function encryptLegacyAuthPackage(pkg: LegacyAuthPackage, publicKey: KeyObject): string {
  return sealJson(legacyAuthPackageJson(pkg), publicKey);
}

export function decryptLegacyAuthPackage(auth: string, privateKey: KeyObject): unknown {
  return openJson(auth, privateKey);
}

function sealJson(json: string, publicKey: KeyObject): string {
  const plaintext = Buffer.from(json, 'utf8');
  const ciphertext = encryptOaepSha1Block(plaintext, publicKey);
  if (!ciphertext) {
    throw new LegacyPackageError(
      'too_large',
      `the auth package is ${plaintext.byteLength} bytes; one RSA block of this key carries ${maxOaepSha1Plaintext(publicKey)}`,
    );
  }
  return encodeBase64(ciphertext);
}

function openJson(auth: string, privateKey: KeyObject): unknown {
  const ciphertext = decodeLegacyBase64(auth);
  if (!ciphertext) throw new LegacyPackageError('base64', 'auth is not Base64');
  const plaintext = decryptOaepSha1Block(ciphertext, privateKey);
  if (!plaintext) throw new LegacyPackageError('decryption', 'auth does not decrypt with this key');
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)) as unknown;
  } catch {
    throw new LegacyPackageError('format', 'the decrypted auth is not JSON');
  }
}

/**
 * v1 message codes, from the old clients. Codes 704xx belong to `GET /v1/poll`, 404xx to `POST /v1/auths`.
 * - `70402` "There is no pending request" for an unknown auth_request, and `70403` "Pending response": recorded API
 *   answers in the Ruby gem's VCR cassettes (`spec/cassettes/client/poll_request/invalid.yml`, `pending.yml`) and
 *   docs.launchkey.com `developer/api/poll.html`. Clients treat 70403 as "no answer yet".
 * - `70401` (invalid request) and `70404` (expired auth request): launchkey-java `ApiException.fromCode`, launchkey-php
 *   `AbstractApiService::throwExceptionForErrorResponse`. Their message texts were not found.
 * - `4042x`: launchkey.py 1.0's comment on `authorize` (as 3042x) and the same two mappings.
 * No source names a poll-specific code for bad credentials or an expired stamp (the glossary only says "a message code
 * ending in 211", status 401); every old client turns any code but 70403 into a plain error.
 */
export const v1MessageCodes: Readonly<Record<string, number>> = Object.freeze({
  pollInvalidRequest: 70401,
  pollNoPendingRequest: 70402,
  pollPending: 70403,
  pollExpired: 70404,
  authsIncorrectData: 40421,
  authsCredentialsIncorrect: 40422,
  authsErrorVerifyingApp: 40423,
  authsNoPairedDevices: 40424,
  authsNoSuchUser: 40426,
  authsExpired: 40431,
  authsRateLimited: 40436,
});

/** The message texts the v1 API is on record as sending. */
export const v1Messages: Readonly<Record<string, string>> = Object.freeze({
  pollNoPendingRequest: 'There is no pending request',
  pollPending: 'Pending response',
});

export interface V1ErrorBody {
  readonly successful: false;
  readonly status_code: number;
  readonly message: string;
  readonly message_code: number;
  /** Documented as null; the recorded answers carry an empty string. */
  readonly response: string;
}

/** The v1 error envelope, e.g. `v1Error(400, 'Pending response', 70403)`. */
export function v1Error(status: number, message: string, messageCode: number): V1ErrorBody {
  return { successful: false, status_code: status, message, message_code: messageCode, response: '' };
}
