/**
 * RC2 (RFC 2268), decryption only: the certificates of macOS Keychain's PKCS#12 exports are encrypted with 40-bit
 * RC2, which OpenSSL 3 keeps in its legacy provider, out of node's reach, and no well-kept library implements.
 */

/** RFC 2268's PITABLE, a permutation of the bytes derived from π. */
const piTable = Uint8Array.from(
  Buffer.from(
    'd978f9c419ddb5ed28e9fd794aa0d89dc67e37832b76538e624c6488448bfba2179a59f587b34f1361456d8d09817d32' +
      'bd8f40eb86b77b0bf09521225c6b4e8254d66593ce60b21c7356c014a78cf1dc1275ca1f3bbee4d1423dd430a33cb626' +
      '6fbf0eda4669075727f21d9bbc944303f811c7f690ef3ee706c3d52fc8661ed708e8eade8052eef784aa72ac354d6a2a' +
      '961ad2715a1549744b9fd05e0418a4ecc2e0416e0f51cbcc2491af50a1f47039997c3a8523b8b47afc02365b25559731' +
      '2d5dfa98e38a92ae05df2910676cbac9d300e6cfe19ea82c6316013f58e289a90d38341bab33ffb0bb480c5fb9b1cd2e' +
      'c5f3db47e5a59c770aa62068fe7fc1ad',
    'hex',
  ),
);

const pi = (index: number) => piTable[index & 0xff] ?? 0;

/** RFC 2268's key expansion: 64 16-bit subkeys from a key of 1 to 128 bytes and an effective key length in bits. */
export function rc2KeySchedule(key: Uint8Array, effectiveBits: number): Uint16Array {
  if (key.byteLength < 1 || key.byteLength > 128) throw new RangeError('RC2 keys are 1 to 128 bytes');
  if (!Number.isInteger(effectiveBits) || effectiveBits < 1 || effectiveBits > 1024) {
    throw new RangeError('RC2 effective key lengths are 1 to 1024 bits');
  }
  const expanded = new Uint8Array(128);
  expanded.set(key);
  const at = (index: number) => expanded[index] ?? 0;
  for (let index = key.byteLength; index < 128; index++) {
    expanded[index] = pi(at(index - 1) + at(index - key.byteLength));
  }
  const effectiveBytes = Math.ceil(effectiveBits / 8);
  const mask = 0xff % 2 ** (8 + effectiveBits - 8 * effectiveBytes);
  expanded[128 - effectiveBytes] = pi(at(128 - effectiveBytes) & mask);
  for (let index = 127 - effectiveBytes; index >= 0; index--) {
    expanded[index] = pi(at(index + 1) ^ at(index + effectiveBytes));
  }
  const schedule = new Uint16Array(64);
  for (let index = 0; index < 64; index++) schedule[index] = at(2 * index) | (at(2 * index + 1) << 8);
  return schedule;
}

const rotateRight = (word: number, bits: number) => ((word >>> bits) | (word << (16 - bits))) & 0xffff;

/** One 8-byte block decrypted with an expanded key: RFC 2268 section 4's mixing and mashing rounds, undone. */
export function rc2DecryptBlock(schedule: Uint16Array, block: Uint8Array): Uint8Array {
  const input = Buffer.from(block.buffer, block.byteOffset, 8);
  let r0 = input.readUInt16LE(0);
  let r1 = input.readUInt16LE(2);
  let r2 = input.readUInt16LE(4);
  let r3 = input.readUInt16LE(6);
  const subkey = (index: number) => schedule[index & 63] ?? 0;
  let next = 63;
  const mix = () => {
    r3 = (rotateRight(r3, 5) - subkey(next--) - (r2 & r1) - (~r2 & r0)) & 0xffff;
    r2 = (rotateRight(r2, 3) - subkey(next--) - (r1 & r0) - (~r1 & r3)) & 0xffff;
    r1 = (rotateRight(r1, 2) - subkey(next--) - (r0 & r3) - (~r0 & r2)) & 0xffff;
    r0 = (rotateRight(r0, 1) - subkey(next--) - (r3 & r2) - (~r3 & r1)) & 0xffff;
  };
  const mash = () => {
    r3 = (r3 - subkey(r2)) & 0xffff;
    r2 = (r2 - subkey(r1)) & 0xffff;
    r1 = (r1 - subkey(r0)) & 0xffff;
    r0 = (r0 - subkey(r3)) & 0xffff;
  };
  for (const rounds of [5, 6]) {
    for (let round = 0; round < rounds; round++) mix();
    mash();
  }
  for (let round = 0; round < 5; round++) mix();
  const output = Buffer.alloc(8);
  output.writeUInt16LE(r0, 0);
  output.writeUInt16LE(r1, 2);
  output.writeUInt16LE(r2, 4);
  output.writeUInt16LE(r3, 6);
  return output;
}

/** RC2 in CBC mode with PKCS#7 padding, which is refused when wrong: the sign of a wrong key. */
export function rc2CbcDecrypt(
  key: Uint8Array,
  effectiveBits: number,
  iv: Uint8Array,
  ciphertext: Uint8Array,
): Buffer {
  if (iv.byteLength !== 8) throw new RangeError('RC2-CBC needs an 8-byte IV');
  if (ciphertext.byteLength === 0 || ciphertext.byteLength % 8 !== 0) {
    throw new RangeError('RC2-CBC ciphertext is whole 8-byte blocks');
  }
  const schedule = rc2KeySchedule(key, effectiveBits);
  const plaintext = Buffer.alloc(ciphertext.byteLength);
  let previous = iv;
  for (let offset = 0; offset < ciphertext.byteLength; offset += 8) {
    const block = ciphertext.subarray(offset, offset + 8);
    const decrypted = rc2DecryptBlock(schedule, block);
    for (let index = 0; index < 8; index++) {
      plaintext[offset + index] = (decrypted[index] ?? 0) ^ (previous[index] ?? 0);
    }
    previous = block;
  }
  const padding = plaintext[plaintext.byteLength - 1] ?? 0;
  const padded = plaintext.subarray(plaintext.byteLength - padding);
  if (padding < 1 || padding > 8 || padded.some((byte) => byte !== padding)) {
    throw new Error('RC2-CBC padding is wrong: not the key it was encrypted with');
  }
  return plaintext.subarray(0, plaintext.byteLength - padding);
}
