/** The hash names the SDKs put in `func` and the digests they mean (docs/protocol.md#body-hash). */
export const hashFunctions = { S256: 'sha256', S384: 'sha384', S512: 'sha512' } as const;
export type HashFunction = keyof typeof hashFunctions;

export function isHashFunction(value: unknown): value is HashFunction {
  return typeof value === 'string' && Object.hasOwn(hashFunctions, value);
}
