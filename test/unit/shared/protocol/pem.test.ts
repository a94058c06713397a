import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidKeyError, importPrivateKey, importPublicKey, publicKeyPem } from '#shared/protocol/pem';
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
