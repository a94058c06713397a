import { createECDH, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import type { SigningKey } from '#shared/protocol/jws';
import { keyId } from '#shared/protocol/kid';
import { importPrivateKey, publicKeyPem } from '#shared/protocol/pem';
import { isoSeconds } from '#shared/time';

/** The stored form of the API's private keys: every key it may still be asked to decrypt with, and the signing one. */
export interface ApiKeyRingDocument {
  readonly current: string;
  readonly keys: readonly StoredApiKey[];
  /**
   * The deployment's secret for keyed hashes (service_user_hash, org_user_hash, user_push_id) and sealed values:
   * 32 random bytes, base64. Made once with the ring and kept through every rotation, so hashes stay stable.
   */
  readonly hashKey?: string;
  /**
   * The deployment's VAPID key pair (RFC 8292), which signs every Web Push: made once with the ring and kept through
   * every rotation, since browsers bind each subscription to the public half they were given.
   */
  readonly vapid?: VapidKeys;
}

/** A P-256 key pair as Web Push uses it: the uncompressed public point (65 bytes) and the private scalar, base64url. */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

export interface StoredApiKey {
  readonly kid: string;
  /** PKCS#8 PEM. */
  readonly privateKey: string;
  /** ISO 8601 UTC. */
  readonly created: string;
}

export interface ApiKeyRing {
  /** Signs every response and webhook; its public half is what `/public/v3/public-key` serves. */
  readonly current: SigningKey;
  /** The private key a request body was encrypted to, by the JWE's kid; the current key when the JWE names none. */
  decryptionKey(kid: string | undefined): KeyObject | undefined;
  /** Every private key of the ring, for formats that name no key (the legacy v1 secret). */
  readonly privateKeys: readonly KeyObject[];
  /** The deployment's hash key (see ApiKeyRingDocument.hashKey). */
  readonly hashKey: Buffer;
  /** The VAPID key pair; absent only from a ring no deployment or start has updated yet. */
  readonly vapid: VapidKeys | undefined;
}

export const apiKeySizes = [2048, 3072, 4096] as const;
export type ApiKeySize = (typeof apiKeySizes)[number];

/** Imports and checks a stored key ring: every kid must be the fingerprint of its key, and the current one present. */
export function openApiKeyRing(document: ApiKeyRingDocument): ApiKeyRing {
  const keys = new Map<string, KeyObject>();
  for (const stored of document.keys) {
    const privateKey = importPrivateKey(stored.privateKey);
    if (keyId(privateKey) !== stored.kid)
      throw new Error(`API key ring entry ${stored.kid} does not match its key`);
    keys.set(stored.kid, privateKey);
  }
  const currentKey = keys.get(document.current);
  if (!currentKey) throw new Error(`API key ring has no key for its current kid ${document.current}`);
  const current: SigningKey = { kid: document.current, privateKey: currentKey };
  const hashKey = Buffer.from(document.hashKey ?? '', 'base64');
  if (hashKey.length !== 32)
    throw new Error('The API key ring has no 32-byte hashKey; run `admin api-key add`');
  return {
    current,
    decryptionKey: (kid) => (kid === undefined ? currentKey : keys.get(kid)),
    privateKeys: [...keys.values()],
    hashKey,
    vapid: document.vapid,
  };
}

export interface GeneratedApiKey extends StoredApiKey {
  readonly publicKey: string;
}

export function generateApiKey(bits: ApiKeySize, now = new Date()): GeneratedApiKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    kid: keyId(privateKey),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKeyPem(privateKey),
    created: isoSeconds(now),
  };
}

/** Adds a key to a ring (or starts one); rotation is adding a key as current while older keys stay for decryption. */
export function withApiKey(
  document: ApiKeyRingDocument | undefined,
  key: StoredApiKey,
  makeCurrent: boolean,
): ApiKeyRingDocument {
  const keys = [...(document?.keys ?? []).filter((existing) => existing.kid !== key.kid), key];
  return {
    current: makeCurrent || !document ? key.kid : document.current,
    keys,
    hashKey: document?.hashKey ?? randomBytes(32).toString('base64'),
    vapid: document?.vapid ?? generateVapidKeys(),
  };
}

/** A new VAPID key pair on P-256. */
export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // The scalar is 32 bytes, but Node drops its leading zero bytes, which web-push refuses.
  const privateKey = Buffer.alloc(32);
  const scalar = ecdh.getPrivateKey();
  scalar.copy(privateKey, 32 - scalar.length);
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: privateKey.toString('base64url'),
  };
}

/** A ring made before Web Push existed, given its VAPID key pair. */
export function withVapidKeys(document: ApiKeyRingDocument): ApiKeyRingDocument {
  return document.vapid ? document : { ...document, vapid: generateVapidKeys() };
}

/** A ring made before hash keys existed, given one. */
export function withHashKey(document: ApiKeyRingDocument): ApiKeyRingDocument {
  return document.hashKey ? document : { ...document, hashKey: randomBytes(32).toString('base64') };
}

export function withCurrentApiKey(document: ApiKeyRingDocument, kid: string): ApiKeyRingDocument {
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`The API key ring has no key ${kid}`);
  return { ...document, current: kid };
}

/**
 * Removes a key from a ring: it no longer signs or decrypts. The current key cannot go, since every response is signed
 * with it; make another key current first.
 */
export function withoutApiKey(document: ApiKeyRingDocument, kid: string): ApiKeyRingDocument {
  if (kid === document.current)
    throw new Error(`API key ${kid} is the current key and cannot be revoked; rotate to another key first`);
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`The API key ring has no key ${kid}`);
  return { ...document, keys: document.keys.filter((key) => key.kid !== kid) };
}

export function parseApiKeyRingDocument(text: string): ApiKeyRingDocument {
  const value = JSON.parse(text) as Partial<ApiKeyRingDocument>;
  if (typeof value.current !== 'string' || !Array.isArray(value.keys)) {
    throw new Error('The API key ring document needs "current" and "keys"');
  }
  return value as ApiKeyRingDocument;
}
