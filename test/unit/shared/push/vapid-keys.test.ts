import { createECDH } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  generateVapidKeys,
  openApiKeyRing,
  withApiKey,
  withVapidKeys,
} from '#shared/api-keys/key-ring';

const key = generateApiKey(2048);

describe('the VAPID key pair in the API key ring', () => {
  it('is made with a new ring: a P-256 point and its 32-byte scalar, base64url', () => {
    const { vapid } = openApiKeyRing(withApiKey(undefined, key, true));
    if (!vapid) throw new Error('no VAPID keys');
    const publicKey = Buffer.from(vapid.publicKey, 'base64url');
    const privateKey = Buffer.from(vapid.privateKey, 'base64url');
    expect([publicKey.length, publicKey[0], privateKey.length]).toEqual([65, 4, 32]);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    expect(ecdh.getPublicKey().equals(publicKey)).toBe(true);
  });

  it('survives every rotation, since browsers bind subscriptions to it', () => {
    const ring = withApiKey(undefined, key, true);
    const rotated = withApiKey(ring, generateApiKey(2048), true);
    expect(rotated.vapid).toEqual(ring.vapid);
    expect(withVapidKeys(rotated)).toBe(rotated);
  });

  it('is added to a ring made before pushes, and no ring opens without one looking like another', () => {
    const { vapid: _none, ...older } = withApiKey(undefined, key, true);
    expect(openApiKeyRing(older).vapid).toBeUndefined();
    const upgraded = withVapidKeys(older);
    expect(upgraded.vapid).toBeDefined();
    expect(upgraded.keys).toEqual(older.keys);
    expect(generateVapidKeys().publicKey).not.toBe(generateVapidKeys().publicKey);
  });
});
