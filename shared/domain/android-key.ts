import { createPrivateKey, type KeyObject, randomBytes } from 'node:crypto';
import type { SealedAndroidKey } from '#shared/domain/directory';
import { seal, unseal } from '#shared/domain/user-identity';

/** What the FCM HTTP v1 provider needs from a Google service-account key file; the rest of the file is ignored. */
export interface FcmServiceAccount {
  readonly projectId: string;
  readonly clientEmail: string;
  readonly privateKeyId: string;
  /** PEM, as the file holds it; an RSA private key of 2048 to 4096 bits. */
  readonly privateKeyPem: string;
}

/** An `android_key` that is not a usable service-account file; the message completes `android_key …`. */
export class InvalidAndroidKeyError extends Error {
  override readonly name = 'InvalidAndroidKeyError';
}

/**
 * What an `android_key` is good for. LaunchKey took any string, so every one within the limit is taken; only a
 * service-account file can push, and for anything else the reason says why, without quoting it.
 */
export type AndroidKeyInspection =
  | { readonly usable: true; readonly account: FcmServiceAccount }
  | { readonly usable: false; readonly reason: string };

/**
 * The longest `android_key` taken, in characters. A key file is about 2 300 and one with a 4096-bit key about 4 000:
 * the 4 096 of earlier documentation would refuse such a file once re-indented or saved with CRLF line ends.
 */
export const maxAndroidKeyLength = 8 * 1024;

// Google's rules: 6 to 30 lower-case letters, digits or hyphens, starting with a letter and not ending with a hyphen;
// a domain-scoped project (an old Workspace feature) puts its domain and a colon before that.
const projectIdPattern = /^(?:[a-z0-9][a-z0-9.-]{0,62}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
// firebase-adminsdk-xxxxx@<project>.iam.gserviceaccount.com, or a default account such as <project>@appspot….
const clientEmailPattern = /^[a-z0-9][a-z0-9-]{0,62}@(?:[a-z0-9-]+\.)+gserviceaccount\.com$/;
// Google's key ids are 40 hex digits; the id only names the key in the JWT header, so any token-safe id is taken.
const privateKeyIdPattern = /^[A-Za-z0-9_-]{16,128}$/;

const notAFile =
  'is not a Firebase service-account JSON file (Google retired the legacy FCM API and its server keys in 2024); ' +
  'give the file from the Firebase console (Project settings → Service accounts → Generate new private key)';

/** Reads an `android_key` within `maxAndroidKeyLength`: a service account to push with, or why there is none. */
export function inspectAndroidKey(value: string): AndroidKeyInspection {
  try {
    return { usable: true, account: parseAndroidKey(value) };
  } catch (error) {
    if (error instanceof InvalidAndroidKeyError) return { usable: false, reason: error.message };
    throw error;
  }
}

/**
 * Reads a Google service-account key file (what the Firebase console's "Generate new private key" downloads), the
 * credentials FCM HTTP v1 takes. The file's `token_uri` is ignored: the token endpoint is a setting, so a directory's
 * key cannot send the worker's signed grants anywhere else. Refusals are `InvalidAndroidKeyError`s.
 */
export function parseAndroidKey(value: string): FcmServiceAccount {
  const text = value.trim();
  if (!text.startsWith('{')) throw new InvalidAndroidKeyError(notAFile);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidAndroidKeyError('is not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new InvalidAndroidKeyError('is not a JSON object');
  }
  const file = json as Record<string, unknown>;
  if (file.type !== 'service_account') {
    // Not quoted: the reason is shown to operators and logged, and the string is the caller's secret.
    throw new InvalidAndroidKeyError('is a JSON file whose type is not "service_account", which FCM needs');
  }
  const projectId = field(file, 'project_id');
  if (!projectIdPattern.test(projectId))
    throw new InvalidAndroidKeyError('has a project_id Google would not issue');
  const clientEmail = field(file, 'client_email');
  if (!clientEmailPattern.test(clientEmail)) {
    throw new InvalidAndroidKeyError('has a client_email that is not a Google service account');
  }
  const privateKeyId = field(file, 'private_key_id');
  if (!privateKeyIdPattern.test(privateKeyId))
    throw new InvalidAndroidKeyError('has a malformed private_key_id');
  const privateKeyPem = field(file, 'private_key');
  checkRsaKey(privateKeyPem);
  return { projectId, clientEmail, privateKeyId, privateKeyPem };
}

/**
 * What the API shows in place of the key file: which account and key it holds, nothing secret. Google's console
 * lists keys by the same id, so an operator can tell which key a directory uses.
 */
export function describeAndroidKey(account: FcmServiceAccount): string {
  return `service-account:${account.clientEmail}#${account.privateKeyId.slice(0, 8)}`;
}

// Its own purpose, so a sealed android_key cannot be passed off as sealed push credentials, nor the reverse.
const sealPurpose = 'directory/android-key';

/** An `android_key` that is not a service-account file, sealed for the directory's record: it is shown as given. */
export function sealAndroidKey(hashKey: Buffer, value: string): SealedAndroidKey {
  return { sealed: seal(hashKey, sealPurpose, value, randomBytes(12)) };
}

export function openAndroidKey(hashKey: Buffer, sealed: SealedAndroidKey): string {
  return unseal(hashKey, sealPurpose, sealed.sealed);
}

function field(file: Record<string, unknown>, name: string): string {
  const value = file[name];
  if (typeof value !== 'string' || value.length === 0) throw new InvalidAndroidKeyError(`has no ${name}`);
  return value;
}

function checkRsaKey(pem: string): void {
  if (!/^-----BEGIN (?:RSA )?PRIVATE KEY-----/.test(pem.trim())) {
    throw new InvalidAndroidKeyError('has a private_key that is not a PEM private key');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new InvalidAndroidKeyError('has a private_key that cannot be read');
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new InvalidAndroidKeyError('has a private_key that is not an RSA key; Google signs with RS256');
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  // RS256 wants at least 2048 bits; more than 4096 only makes every token request slower.
  if (bits < 2048 || bits > 4096) {
    throw new InvalidAndroidKeyError(`has a ${bits}-bit RSA key; it must have 2048 to 4096 bits`);
  }
}
