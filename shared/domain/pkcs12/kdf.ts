import { hash } from 'node:crypto';

/** The hashes PKCS#12 key derivation runs on, by node's name, with their block size in bytes (RFC 7292 B.2's v). */
export const pkcs12KdfBlockSizes = { sha1: 64, sha224: 64, sha256: 64, sha384: 128, sha512: 128 } as const;
export type Pkcs12KdfHash = keyof typeof pkcs12KdfBlockSizes;

/** What the derived bytes are for: RFC 7292 B.3's ID byte. */
export const pkcs12KeyPurpose = { key: 1, iv: 2, mac: 3 } as const;

export interface Pkcs12KdfInput {
  readonly hash: Pkcs12KdfHash;
  /** Already encoded: a BMPString with its two-zero-byte terminator, or no bytes at all. */
  readonly password: Uint8Array;
  readonly salt: Uint8Array;
  readonly purpose: (typeof pkcs12KeyPurpose)[keyof typeof pkcs12KeyPurpose];
  /** Checked against the cap by whoever read it from the file: the rounds below are the cost. */
  readonly iterations: number;
  readonly length: number;
}

/**
 * RFC 7292 appendix B.2, PKCS#12's own password-based key derivation, which its MAC and its pbeWithSHAAnd… ciphers
 * use. Written here because node:crypto offers PBKDF2 but not this, and no well-kept library does either.
 */
export function pkcs12Kdf(input: Pkcs12KdfInput): Buffer {
  const blockSize = pkcs12KdfBlockSizes[input.hash];
  const diversifier = Buffer.alloc(blockSize, input.purpose);
  const material = Buffer.concat([
    repeatToBlocks(input.salt, blockSize),
    repeatToBlocks(input.password, blockSize),
  ]);
  const output: Buffer[] = [];
  for (let produced = 0; produced < input.length;) {
    let digest = hash(input.hash, Buffer.concat([diversifier, material]), 'buffer');
    for (let round = 1; round < input.iterations; round++) digest = hash(input.hash, digest, 'buffer');
    output.push(digest);
    produced += digest.byteLength;
    if (produced < input.length) addToEachBlock(material, repeatToBlocks(digest, blockSize), blockSize);
  }
  return Buffer.concat(output).subarray(0, input.length);
}

/** Copies of `bytes` filling a whole number of blocks, the last copy cut short; nothing for no bytes. */
function repeatToBlocks(bytes: Uint8Array, blockSize: number): Buffer {
  const filled = Buffer.alloc(blockSize * Math.ceil(bytes.byteLength / blockSize));
  for (let index = 0; index < filled.byteLength; index++)
    filled[index] = bytes[index % bytes.byteLength] ?? 0;
  return filled;
}

/** Each block of `material` becomes (block + addend + 1) mod 2^(8 × blockSize), big-endian. */
function addToEachBlock(material: Buffer, addend: Buffer, blockSize: number): void {
  for (let start = 0; start < material.byteLength; start += blockSize) {
    let carry = 1;
    for (let index = blockSize - 1; index >= 0; index--) {
      carry += (material[start + index] ?? 0) + (addend[index] ?? 0);
      material[start + index] = carry & 0xff;
      carry >>= 8;
    }
  }
}
