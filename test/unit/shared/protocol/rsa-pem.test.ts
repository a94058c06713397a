import { describe, expect, it } from 'vitest';
import { InvalidKeyError as NodeInvalidKeyError, publicKeyPem } from '#shared/protocol/pem';
import { decryptLegacyAuthPackage, decryptV1AuthPackage } from '#shared/protocol/legacy-packages';
import {
  LegacyPackageError,
  sealLegacyAuthPackage,
  sealV1AuthPackage,
} from '#shared/protocol/legacy-package-seal';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { InvalidKeyError, parseRsaPrivateKeyPem, parseRsaPublicKeyPem } from '#shared/protocol/rsa-pem';
import { rsaKeyPair } from '#test/support/keys';

describe('the browser-safe RSA PEM reader', () => {
  const pair = rsaKeyPair();

  it('computes the same kid and SPKI PEM as node:crypto from every PEM form', () => {
    const forms = [
      parseRsaPublicKeyPem(pair.publicPem),
      parseRsaPublicKeyPem(pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
      parseRsaPrivateKeyPem(pair.privatePem).publicKey,
      parseRsaPrivateKeyPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()).publicKey,
    ];
    for (const key of forms) {
      expect(key.kid).toBe(pair.kid);
      expect(key.pem).toBe(publicKeyPem(pair.publicKey));
      expect(key.modulusBits).toBe(2048);
    }
  });

  it('gives the private key as the JWK node:crypto exports', () => {
    expect({ ...parseRsaPrivateKeyPem(pair.privatePem).jwk }).toEqual(
      pair.privateKey.export({ format: 'jwk' }),
    );
  });

  it.each([
    ['a private key as public', () => parseRsaPublicKeyPem(pair.privatePem), /expected a PEM public key/],
    ['a public key as private', () => parseRsaPrivateKeyPem(pair.publicPem), /unencrypted private key/],
    [
      'garbage',
      () => parseRsaPublicKeyPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'),
      /does not parse/,
    ],
    [
      'a 1024-bit key',
      () => parseRsaPublicKeyPem(rsaKeyPair(1024).publicPem),
      /at least 2048 bits, this one has 1024/,
    ],
    [
      'a public exponent of 2^32 + 1',
      () => parseRsaPublicKeyPem(rsaPublicKeyOfBits(2048, 2n ** 32n + 1n)),
      /from 3 to 2\^32 - 1/,
    ],
  ])('refuses %s with the server’s error', (_, read, reason) => {
    expect(read).toThrow(reason);
    expect(read).toThrow(NodeInvalidKeyError);
    expect(InvalidKeyError).toBe(NodeInvalidKeyError);
  });

  it('seals legacy packages with WebCrypto that the server-side reader opens', async () => {
    const publicKey = parseRsaPublicKeyPem(pair.publicPem);
    const legacy = { auth_request: 'a', response: true, device_id: 'd', service_pins: ['1234'] };
    expect(decryptLegacyAuthPackage(await sealLegacyAuthPackage(legacy, publicKey), pair.privateKey)).toEqual(
      legacy,
    );
    const v1 = { response: false, auth_request: 'a', device_id: 'd', app_pins: '1,2' };
    expect(decryptV1AuthPackage(await sealV1AuthPackage(v1, publicKey), pair.privateKey)).toEqual(v1);
    const tooLarge = { ...legacy, service_pins: ['x'.repeat(200)] };
    await expect(sealLegacyAuthPackage(tooLarge, publicKey)).rejects.toBeInstanceOf(LegacyPackageError);
  });
});

describe("the browser's contentHash", () => {
  it('gives the digests node:crypto gives', async () => {
    const { contentHash: nodeHash } = await import('#shared/protocol/content-hash');
    const { contentHash: portableHash } = await import('#shared/protocol/content-hash.browser');
    for (const func of ['S256', 'S384', 'S512'] as const) {
      expect(portableHash(func, 'héllo')).toBe(nodeHash(func, 'héllo'));
      expect(portableHash(func, new Uint8Array([1, 2, 3]))).toBe(nodeHash(func, new Uint8Array([1, 2, 3])));
    }
  });
});
