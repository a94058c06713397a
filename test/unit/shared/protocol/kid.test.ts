import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyId } from '#shared/protocol/kid';
import { importPublicKey } from '#shared/protocol/pem';
import { rsaKeyPair } from '#test/support/keys';

const alphaSpki = readFileSync(new URL('../../../fixtures/alpha-public-key.pem', import.meta.url), 'utf8');
const alphaPkcs1 = readFileSync(
  new URL('../../../fixtures/alpha-public-key.pkcs1.pem', import.meta.url),
  'utf8',
);

describe('keyId', () => {
  it('matches the SDKs’ vector: MD5 of the SPKI DER in colon hex (docs/protocol.md#key-ids)', () => {
    expect(keyId(importPublicKey(alphaSpki))).toBe('e6:60:3f:95:ea:c8:4d:2b:98:18:c0:0c:28:e8:9f:bb');
  });

  it('gives the same kid for the PKCS#1 form of the same key', () => {
    expect(keyId(importPublicKey(alphaPkcs1))).toBe('e6:60:3f:95:ea:c8:4d:2b:98:18:c0:0c:28:e8:9f:bb');
  });

  it('gives a private key the kid of its public half', () => {
    const pair = rsaKeyPair();
    expect(keyId(pair.privateKey)).toBe(keyId(createPublicKey(pair.privateKey)));
    expect(pair.kid).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
  });
});
