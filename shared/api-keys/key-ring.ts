import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { VapidKeys } from '#shared/api-keys/vapid-keys';
import type { SigningKey } from '#shared/protocol/jws';
import { keyId } from '#shared/protocol/kid';
import { importPrivateKey, publicKeyPem } from '#shared/protocol/pem';
import { isoSeconds } from '#shared/time';

/**
 * The stored form of the API's private RSA keys: every key it may still be asked to decrypt with, and the signing one.
 * Only the functions that sign or decrypt read it; the hash key and the VAPID keys are kept apart (hash-key.ts,
 * vapid-keys.ts), each readable only by the functions that use it.
 */
export interface ApiKeyRingDocument {
  readonly current: string;
  readonly keys: readonly StoredApiKey[];
  /**
   * Only in a ring written before the hash key had a place of its own: ensureKeyCustody moves it there, unchanged,
   * and then drops it from the ring. Every edit of the ring keeps it until then.
   */
  readonly hashKey?: string;
  /** Only in a ring written before the VAPID key pair had a place of its own, likewise. */
  readonly vapid?: VapidKeys;
  /** When ensureKeyCustody copied those two to their own places (ISO 8601), from which finishKeySplit counts. */
  readonly splitAt?: string;
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
  return {
    current,
    decryptionKey: (kid) => (kid === undefined ? currentKey : keys.get(kid)),
    privateKeys: [...keys.values()],
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
  // A ring not yet split keeps its hash key and VAPID keys through the edit: they move only once copied elsewhere.
  return { ...document, current: makeCurrent || !document ? key.kid : document.current, keys };
}

/** The ring without the parts an older ring carried, once they are kept in places of their own. */
export function withoutLegacyParts(document: ApiKeyRingDocument): ApiKeyRingDocument {
  return { current: document.current, keys: document.keys };
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
