import { createHash } from 'node:crypto';

/** The hash names the SDKs put in `func` and the digests they mean (docs/protocol.md#body-hash). */
export const hashFunctions = { S256: 'sha256', S384: 'sha384', S512: 'sha512' } as const;
export type HashFunction = keyof typeof hashFunctions;

export function isHashFunction(value: unknown): value is HashFunction {
  return typeof value === 'string' && Object.hasOwn(hashFunctions, value);
}

/** Lowercase hex digest over the exact body bytes; a string body is hashed as the UTF-8 bytes that were sent. */
export function contentHash(func: HashFunction, body: Uint8Array | string): string {
  return createHash(hashFunctions[func]).update(body).digest('hex');
}
