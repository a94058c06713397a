import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidKeyError, importPrivateKey, importPublicKey, publicKeyPem } from '#shared/protocol/pem';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { rsaKeyPair } from '#test/support/keys';

const alphaPkcs1 = readFileSync(
  new URL('../../../fixtures/alpha-public-key.pkcs1.pem', import.meta.url),
  'utf8',
);

describe('importPublicKey', () => {
  it('reads SPKI and PKCS#1 PEM, which jose alone would refuse', () => {
    const pair = rsaKeyPair();
    expect(importPublicKey(pair.publicPem).asymmetricKeyType).toBe('rsa');
    expect(importPublicKey(alphaPkcs1).asymmetricKeyDetails?.modulusLength).toBe(4096);
  });

  it.each([3n, 65537n, 2n ** 32n - 1n])('takes a public exponent of %s', (exponent) => {
    expect(importPublicKey(rsaPublicKeyOfBits(2048, exponent)).asymmetricKeyDetails?.publicExponent).toBe(
      exponent,
    );
  });

  it('writes public keys back as SPKI, the form the Java SDK parses', () => {
    expect(publicKeyPem(importPublicKey(alphaPkcs1))).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  });

  it.each([
    ['a private key', () => rsaKeyPair().privatePem, /expected a PEM public key/],
    ['text that is not PEM', () => 'hello', /expected a PEM public key/],
    [
      'a PEM header over garbage',
      () => '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n',
      /does not parse/,
    ],
    [
      'an EC key',
      () =>
        generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString(),
      /expected an RSA key, got ec/,
    ],
    [
      'a 1024-bit RSA key',
      () =>
        generateKeyPairSync('rsa', { modulusLength: 1024 })
          .publicKey.export({ type: 'spki', format: 'pem' })
          .toString(),
      /at least 2048 bits, this one has 1024/,
    ],
    [
      'a public exponent of 3 071 bits',
      () => rsaPublicKeyOfBits(3072, (1n << 3070n) + 1n),
      /this one has 3071 bits/,
    ],
    ['a public exponent of 2^32 + 1', () => rsaPublicKeyOfBits(2048, 2n ** 32n + 1n), /from 3 to 2\^32 - 1/],
    ['an even public exponent', () => rsaPublicKeyOfBits(2048, 65536n), /must be an odd number/],
    ['a public exponent of 1', () => rsaPublicKeyOfBits(2048, 1n), /must be an odd number/],
  ])('refuses %s with the reason', (_, pem, reason) => {
    expect(() => importPublicKey(pem())).toThrow(InvalidKeyError);
    expect(() => importPublicKey(pem())).toThrow(reason);
  });
});

describe('importPrivateKey', () => {
  it('reads PKCS#8 and PKCS#1 PEM', () => {
    const pair = rsaKeyPair();
    const pkcs1 = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(importPrivateKey(pair.privatePem).type).toBe('private');
    expect(importPrivateKey(pkcs1).type).toBe('private');
  });

  it('refuses a public key', () => {
    expect(() => importPrivateKey(rsaKeyPair().publicPem)).toThrow(InvalidKeyError);
  });
});
