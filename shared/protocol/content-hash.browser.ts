import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { HashFunction } from '#shared/protocol/hash-functions';

export { type HashFunction, hashFunctions, isHashFunction } from '#shared/protocol/hash-functions';

const digests = { S256: sha256, S384: sha384, S512: sha512 } as const;
const encoder = new TextEncoder();

/**
 * contentHash for a browser, which has no synchronous digest of its own: the bodies (a few KB) are hashed in
 * JavaScript. The server and the CLI use OpenSSL's (content-hash.ts).
 */
export function contentHash(func: HashFunction, body: Uint8Array | string): string {
  return bytesToHex(digests[func](typeof body === 'string' ? encoder.encode(body) : body));
}
