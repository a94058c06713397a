/** `key_type` on the wire: 0 both, 1 encryption only, 2 signature only (docs/protocol.md#key-types). */
export const KeyType = { both: 0, encryption: 1, signature: 2 } as const;
export type KeyType = (typeof KeyType)[keyof typeof KeyType];

export function isKeyType(value: unknown): value is KeyType {
  return value === 0 || value === 1 || value === 2;
}

/** A public key registered for an organization, directory or service. */
export interface EntityKey {
  /** The key id: MD5 fingerprint of the SPKI DER. */
  readonly kid: string;
  readonly publicKeyPem: string;
  readonly keyType: KeyType;
  readonly active: boolean;
  /** ISO 8601 UTC. */
  readonly created: string;
  /** ISO 8601 UTC, or null for a key that does not expire. */
  readonly expires: string | null;
}

function isLive(key: EntityKey, now: Date): boolean {
  return key.active && (key.expires === null || Date.parse(key.expires) > now.getTime());
}

/** Requests are verified only with live keys of type 0 or 2: an encryption-only key must not sign (→ 401). */
export function canVerifySignatures(key: EntityKey, now: Date): boolean {
  return isLive(key, now) && key.keyType !== KeyType.encryption;
}

export function canReceiveEncryption(key: EntityKey, now: Date): boolean {
  return isLive(key, now) && key.keyType !== KeyType.signature;
}

/**
 * Picks the key a response is encrypted to. The key that signed the request is the one the caller surely holds, so it
 * wins when it can receive encryption; otherwise the newest live encryption-capable key, dedicated ones first, which is
 * what the single-purpose-keys features expect.
 */
export function responseEncryptionKey(
  keys: readonly EntityKey[],
  signingKid: string,
  now: Date,
): EntityKey | undefined {
  const signing = keys.find((key) => key.kid === signingKid);
  if (signing && canReceiveEncryption(signing, now)) return signing;
  return keys
    .filter((key) => canReceiveEncryption(key, now))
    .sort((a, b) => preference(b) - preference(a) || b.created.localeCompare(a.created))[0];
}

function preference(key: EntityKey): number {
  return key.keyType === KeyType.encryption ? 1 : 0;
}
