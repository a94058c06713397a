import { describe, expect, it } from 'vitest';
import { type Pkcs12KdfHash, pkcs12Kdf, pkcs12KeyPurpose } from '#shared/domain/pkcs12/kdf';

/** A password as PKCS#12 encodes it: a big-endian BMPString with a two-zero-byte terminator. */
const bmp = (text: string) => Buffer.from(`${text}\0`, 'utf16le').swap16();
const hex = (text: string) => Buffer.from(text, 'hex');

describe('pkcs12Kdf', () => {
  // Each expected value is OpenSSL's: `openssl kdf -keylen <length> -kdfopt digest:<hash> -kdfopt hexpass:<password>
  // -kdfopt hexsalt:<salt> -kdfopt id:<purpose> -kdfopt iter:<iterations> PKCS12KDF`.
  it.each<[string, Pkcs12KdfHash, Uint8Array, string, 1 | 2 | 3, number, string]>([
    [
      'a key',
      'sha1',
      bmp('smeg'),
      '0a58cf64530d823f',
      1,
      1,
      '8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3',
    ],
    ['an IV', 'sha1', bmp('smeg'), '0a58cf64530d823f', 2, 1, '79993dfe048d3b76'],
    [
      'four hash outputs, each block of the input stepped between them',
      'sha1',
      bmp('queeg'),
      '1682c0fc5b3f7ec5',
      1,
      1000,
      '483dd6e919d7de2e8e648ba8f862f3fbfbdc2bcb2c02957f2629fac45aae0c9a' +
        '3ea72b800553a678b1d26a168021a2553fd3a45246a4a86f494dd78bc74c3496',
    ],
    [
      'a MAC key for the empty password as OpenSSL encodes it: the terminator alone',
      'sha256',
      Uint8Array.of(0, 0),
      '5be3bd02b5346224',
      3,
      2048,
      'f2630f3c868764aafa1ec09ad4286c9cbb9375347af2bca25d3e47156033ac80',
    ],
    [
      'an IV for the empty password as no bytes at all',
      'sha256',
      new Uint8Array(0),
      '0001020304050607',
      2,
      5,
      '2558c4319d694983c1c5396df1750135e6bcc2571a072c19f8115db79ed2e912bc3a4b1b44ca6257',
    ],
    [
      'a SHA-512 key, 128-byte blocks, from a salt longer than a block',
      'sha512',
      bmp('queeg'),
      Buffer.from(Array.from({ length: 130 }, (_, index) => index)).toString('hex'),
      1,
      3,
      '22942d24fcbec1f9f7653c0931e49e257df72457363741014643639fc553bb578d78f7a3d598b8d114a77acbca98020e' +
        'a47b2098db90906de93da39095eabfb2e7bfdc7856165af3efc4cf0d6fde6e5b5610d2f3e94ddf51d70b1147b3ee8a77974c57f7',
    ],
  ])('derives %s as OpenSSL does', (_, hash, password, salt, purpose, iterations, expected) => {
    const derived = pkcs12Kdf({
      hash,
      password,
      salt: hex(salt),
      purpose,
      iterations,
      length: expected.length / 2,
    });
    expect(derived.toString('hex')).toBe(expected);
  });

  it('derives different bytes for each purpose from the same input', () => {
    const derive = (purpose: 1 | 2 | 3) =>
      pkcs12Kdf({
        hash: 'sha1',
        password: bmp(''),
        salt: hex('00'),
        purpose,
        iterations: 1,
        length: 8,
      }).toString('hex');
    const all = Object.values(pkcs12KeyPurpose).map(derive);
    expect(new Set(all).size).toBe(3);
  });
});
