import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { SigningKey } from '#shared/protocol/jws';
import { keyId } from '#shared/protocol/kid';
import { importPrivateKey, publicKeyPem } from '#shared/protocol/pem';
import { isoSeconds } from '#shared/time';

/** The stored form of the API's private keys: every key it may still be asked to decrypt with, and the signing one. */
export interface ApiKeyRingDocument {
  readonly current: string;
  readonly keys: readonly StoredApiKey[];
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
  return { current: makeCurrent || !document ? key.kid : document.current, keys };
}

export function withCurrentApiKey(document: ApiKeyRingDocument, kid: string): ApiKeyRingDocument {
  if (!document.keys.some((key) => key.kid === kid)) throw new Error(`The API key ring has no key ${kid}`);
  return { ...document, current: kid };
}

export function parseApiKeyRingDocument(text: string): ApiKeyRingDocument {
  const value = JSON.parse(text) as Partial<ApiKeyRingDocument>;
  if (typeof value.current !== 'string' || !Array.isArray(value.keys)) {
    throw new Error('The API key ring document needs "current" and "keys"');
  }
  return value as ApiKeyRingDocument;
}
