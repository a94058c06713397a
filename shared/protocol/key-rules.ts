/** RSA keys shorter than this are refused wherever a key is read (docs/protocol.md#keys). */
export const minimumModulusBits = 2048;

/** A key that cannot be used, with why in words a caller can show. */
export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
}
