/** RSA keys shorter than this are refused wherever a key is read (docs/protocol.md#keys). */
export const minimumModulusBits = 2048;

/**
 * RSA public exponents of more bits than this are refused wherever a key is read (docs/protocol.md#keys): a verify
 * costs in proportion to the exponent's length, so a 3 071-bit one makes each about 70 times dearer. 32 bits is the
 * most Windows' CryptoAPI and CNG can hold, so every common tool's key (65537, 3, 17) passes, and a verify costs at
 * most about twice what 65537's does.
 */
export const maximumPublicExponentBits = 32;

/** A key that cannot be used, with why in words a caller can show. */
export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
}

/** Refuses a public exponent that is even, below 3 or longer than `maximumPublicExponentBits`. */
export function checkPublicExponent(exponent: bigint): void {
  if (exponent < 3n || exponent % 2n === 0n || exponent >> BigInt(maximumPublicExponentBits) !== 0n) {
    const bits = exponent.toString(2).length;
    throw new InvalidKeyError(
      `the RSA public exponent must be an odd number from 3 to 2^${maximumPublicExponentBits} - 1 (65537 is usual); this one has ${bits} bits`,
    );
  }
}
