import { createHash } from 'node:crypto';
import { type HashFunction, hashFunctions } from '#shared/protocol/hash-functions';

export { type HashFunction, hashFunctions, isHashFunction } from '#shared/protocol/hash-functions';

/**
 * Lowercase hex digest over the exact body bytes; a string body is hashed as the UTF-8 bytes that were sent. A browser
 * bundle gets content-hash.browser.ts instead (package.json `imports`, condition `browser`).
 */
export function contentHash(func: HashFunction, body: Uint8Array | string): string {
  return createHash(hashFunctions[func]).update(body).digest('hex');
}
