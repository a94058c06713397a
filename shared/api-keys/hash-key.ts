import { randomBytes } from 'node:crypto';

/**
 * The stored form of the deployment's secret for keyed hashes (service_user_hash, org_user_hash, user_push_id) and
 * sealed values (TOTP secrets, push credentials): 32 random bytes, base64. Made once and kept through every rotation
 * of the API keys, so hashes stay stable and sealed values stay readable; losing it loses both.
 */
export interface HashKeyDocument {
  readonly hashKey: string;
}

export function generateHashKey(): HashKeyDocument {
  return { hashKey: randomBytes(32).toString('base64') };
}

/** The key's bytes, refusing anything that is not exactly 32 of them. */
export function openHashKey(document: HashKeyDocument): Buffer {
  const key = Buffer.from(document.hashKey, 'base64');
  if (key.length !== 32) throw new Error('The hash key must be 32 bytes, base64');
  return key;
}

export function parseHashKeyDocument(text: string): HashKeyDocument {
  const value = JSON.parse(text) as Partial<HashKeyDocument>;
  if (typeof value.hashKey !== 'string') throw new Error('The hash key document needs "hashKey"');
  openHashKey({ hashKey: value.hashKey });
  return { hashKey: value.hashKey };
}
