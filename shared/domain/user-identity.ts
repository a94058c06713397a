import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';

/**
 * How a user appears to services without revealing who they are (docs/protocol.md#authorization-response): keyed hashes that are stable for
 * one service (or organization) and one user, and a push id the service can hand back as a username. All derive from
 * the deployment's hash key, each purpose from its own sub-key.
 */
function subKey(hashKey: Buffer, purpose: string): Buffer {
  let ofKey = subKeys.get(hashKey);
  if (!ofKey) {
    ofKey = new Map();
    subKeys.set(hashKey, ofKey);
  }
  let derived = ofKey.get(purpose);
  if (!derived) {
    derived = Buffer.from(hkdfSync('sha256', hashKey, Buffer.alloc(0), `mfa-authorization/${purpose}`, 32));
    ofKey.set(purpose, derived);
  }
  return derived;
}

/**
 * Sub-keys by hash key and purpose: a poll derives four, and HKDF was a tenth of its CPU. The hash key is loaded once
 * per container, so the same Buffer comes back; purposes are the few written in this file.
 */
const subKeys = new WeakMap<Buffer, Map<string, Buffer>>();

function keyedHash(hashKey: Buffer, purpose: string, ...parts: string[]): string {
  return createHmac('sha256', subKey(hashKey, purpose)).update(parts.join('\u0000')).digest('hex');
}

/** The same user under the same service always hashes alike; under another service, unrelatedly. */
export function serviceUserHash(hashKey: Buffer, serviceId: string, userId: string): string {
  return keyedHash(hashKey, 'service-user-hash', serviceId, userId);
}

export function organizationUserHash(hashKey: Buffer, organizationId: string, userId: string): string {
  return keyedHash(hashKey, 'organization-user-hash', organizationId, userId);
}

const uuidBytes = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');
const uuidText = (bytes: Buffer) =>
  bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * A user's push id for one service: the service and user ids under deterministic authenticated encryption (an IV
 * derived from the plaintext, then AES-256-GCM), so it is stable, reveals nothing, cannot be forged, and resolves
 * back to the user without a lookup table.
 */
export function userPushId(hashKey: Buffer, serviceId: string, userId: string): string {
  const plaintext = Buffer.concat([uuidBytes(serviceId), uuidBytes(userId)]);
  const iv = createHmac('sha256', subKey(hashKey, 'push-id-iv')).update(plaintext).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', subKey(hashKey, 'push-id'), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The service and user a push id names; undefined for anything that is not one of ours. */
export function openUserPushId(
  hashKey: Buffer,
  pushId: string,
): { serviceId: string; userId: string } | undefined {
  const bytes = Buffer.from(pushId, 'base64url');
  if (bytes.length !== 60 || bytes.toString('base64url') !== pushId) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', subKey(hashKey, 'push-id'), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(44));
    const plaintext = Buffer.concat([decipher.update(bytes.subarray(12, 44)), decipher.final()]);
    return { serviceId: uuidText(plaintext.subarray(0, 16)), userId: uuidText(plaintext.subarray(16)) };
  } catch {
    return undefined;
  }
}

/** Seals a secret value at rest (a TOTP secret) under the hash key: AES-256-GCM with a random IV. */
export function seal(hashKey: Buffer, purpose: string, value: string, iv: Buffer): string {
  const cipher = createCipheriv('aes-256-gcm', subKey(hashKey, `seal/${purpose}`), iv);
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

export function unseal(hashKey: Buffer, purpose: string, sealed: string): string {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', subKey(hashKey, `seal/${purpose}`), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
