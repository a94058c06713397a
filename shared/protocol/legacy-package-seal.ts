import type { LegacyFailureReason } from '#shared/protocol/legacy-rsa';
import { encodeBase64, type RsaPublicKey } from '#shared/protocol/rsa-pem';

/**
 * The device side of the legacy `auth` packages (docs/protocol.md#answer-packages, docs/protocol.md#legacy-v1) with
 * WebCrypto, so a browser seals them too: one RSA-OAEP block with SHA-1 and MGF1-SHA1, which WebCrypto has.
 */

export class LegacyPackageError extends Error {
  override readonly name = 'LegacyPackageError';

  constructor(
    readonly reason: LegacyFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** The decrypted v1 `auth` package (docs/protocol.md#legacy-v1). */
export interface V1AuthPackage {
  readonly response: boolean;
  readonly auth_request: string;
  readonly device_id: string;
  /** Up to five pins, comma-separated. */
  readonly app_pins: string;
}

export interface V1AuthPackageOptions {
  /**
   * How `response` is written. `boolean` (default) follows docs/protocol.md#legacy-v1. `string` writes `"true"`/`"false"`, which the
   * LaunchKey Ruby gem (`auth[:response].downcase`) and the 2013 PHP library (`strtolower(...) == "true"`) need;
   * launchkey.py (`str(...).lower()`), Jackson and the 2015 PHP SDK (`== "true"`) read both.
   */
  readonly responseAs?: 'boolean' | 'string';
}

/** The decrypted deprecated v3 `auth` package (docs/protocol.md#answer-packages). */
export interface LegacyAuthPackage {
  readonly auth_request: string;
  readonly response: boolean;
  readonly device_id: string;
  readonly service_pins: readonly string[];
}

/** OAEP with SHA-1 spends 2 × 20 + 2 bytes of the block on padding. */
const oaepSha1Overhead = 42;

/** The JSON of a v1 `auth` package, in the key order the old clients wrote. */
export function v1AuthPackageJson(pkg: V1AuthPackage, options: V1AuthPackageOptions = {}): string {
  const response = options.responseAs === 'string' ? String(pkg.response) : pkg.response;
  return JSON.stringify({
    response,
    auth_request: pkg.auth_request,
    device_id: pkg.device_id,
    app_pins: pkg.app_pins,
  });
}

/** The JSON of a deprecated v3 `auth` package. */
export function legacyAuthPackageJson(pkg: LegacyAuthPackage): string {
  return JSON.stringify({
    auth_request: pkg.auth_request,
    response: pkg.response,
    device_id: pkg.device_id,
    service_pins: pkg.service_pins,
  });
}

/** The v1 `auth` package encrypted to the Service's public key, Base64 in one line. Throws when it does not fit. */
export function sealV1AuthPackage(
  pkg: V1AuthPackage,
  servicePublicKey: RsaPublicKey,
  options: V1AuthPackageOptions = {},
): Promise<string> {
  return sealJson(v1AuthPackageJson(pkg, options), servicePublicKey);
}

/** The deprecated v3 `auth` package, one RSA-OAEP SHA-1 block, Base64. Throws when it does not fit. */
export function sealLegacyAuthPackage(pkg: LegacyAuthPackage, publicKey: RsaPublicKey): Promise<string> {
  return sealJson(legacyAuthPackageJson(pkg), publicKey);
}

async function sealJson(json: string, publicKey: RsaPublicKey): Promise<string> {
  const plaintext = new TextEncoder().encode(json);
  const capacity = Math.ceil(publicKey.modulusBits / 8) - oaepSha1Overhead;
  if (plaintext.byteLength > capacity) {
    throw new LegacyPackageError(
      'too_large',
      `the auth package is ${plaintext.byteLength} bytes; one RSA block of this key carries ${capacity}`,
    );
  }
  const key = await crypto.subtle.importKey(
    'spki',
    publicKey.spki as Uint8Array<ArrayBuffer>,
    { name: 'RSA-OAEP', hash: 'SHA-1' },
    false,
    ['encrypt'],
  );
  return encodeBase64(new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, plaintext)));
}
