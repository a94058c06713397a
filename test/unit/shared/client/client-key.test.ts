import { createPublicKey } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { clientKeyFromPem, createDeviceKey, openDeviceKey } from '#shared/client/client-key';
import { keyId } from '#shared/protocol/kid';
import { rsaKeyPair } from '#test/support/keys';

describe('a browser device key', () => {
  it('keeps non-extractable keys that sign RS512 and decrypt RSA-OAEP for its kid', async () => {
    const stored = await createDeviceKey();
    expect(stored.signing.extractable).toBe(false);
    expect(stored.decryption.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', stored.signing)).rejects.toThrow();
    const publicKey = createPublicKey(stored.publicKeyPem);
    expect(stored.kid).toBe(keyId(publicKey));

    const key = openDeviceKey(stored);
    const token = await new SignJWT({ a: 1 })
      .setProtectedHeader({ alg: 'RS512' })
      .sign(key.signingKey('RS512'));
    expect((await jwtVerify(token, publicKey)).payload.a).toBe(1);
    expect(() => key.signingKey('RS256')).toThrow(/signs RS512 only/);

    const jwe = await new CompactEncrypt(new TextEncoder().encode('hi'))
      .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512' })
      .encrypt(publicKey);
    const decryptionKey = key.decryptionKey('RSA-OAEP');
    if (!decryptionKey) throw new Error('no RSA-OAEP key');
    expect(new TextDecoder().decode((await compactDecrypt(jwe, decryptionKey)).plaintext)).toBe('hi');
    expect(key.decryptionKey('RSA-OAEP-256')).toBeUndefined();
  });
});

describe('a PEM client key', () => {
  it('signs under every algorithm with the kid of its public half', async () => {
    const pair = rsaKeyPair();
    const key = clientKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
    expect(key.kid).toBe(pair.kid);
    for (const alg of ['RS256', 'RS512'] as const) {
      const token = await new SignJWT({}).setProtectedHeader({ alg }).sign(key.signingKey(alg));
      await expect(jwtVerify(token, pair.publicKey)).resolves.toBeDefined();
    }
  });
});
