import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey, withApiKey } from '#shared/api-keys/key-ring';
import { generateVapidKeys, parseVapidKeys } from '#shared/api-keys/vapid-keys';

describe('the VAPID key pair', () => {
  it('is a P-256 point and its 32-byte scalar, base64url', () => {
    const vapid = generateVapidKeys();
    const publicKey = Buffer.from(vapid.publicKey, 'base64url');
    const privateKey = Buffer.from(vapid.privateKey, 'base64url');
    expect([publicKey.length, publicKey[0], privateKey.length]).toEqual([65, 4, 32]);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    expect(ecdh.getPublicKey().equals(publicKey)).toBe(true);
    expect(generateVapidKeys().publicKey).not.toBe(vapid.publicKey);
  });

  it('survives every rotation of a ring that still holds it, since browsers bind subscriptions to it', () => {
    const vapid = generateVapidKeys();
    const ring = { ...withApiKey(undefined, generateApiKey(2048), true), vapid };
    expect(withApiKey(ring, generateApiKey(2048), true).vapid).toEqual(vapid);
    // A ring made now holds none: the pair is a secret of its own.
    expect(withApiKey(undefined, generateApiKey(2048), true).vapid).toBeUndefined();
  });

  it('is read back only whole', () => {
    const vapid = generateVapidKeys();
    expect(parseVapidKeys(JSON.stringify(vapid))).toEqual(vapid);
    expect(() => parseVapidKeys('{"publicKey":"x"}')).toThrow(/needs "publicKey" and "privateKey"/);
  });
});
