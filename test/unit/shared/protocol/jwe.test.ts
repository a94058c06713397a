import { CompactEncrypt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { decryptJson, encryptJson } from '#shared/protocol/jwe';
import type { ProtocolRejection } from '#shared/protocol/rejection';
import { rsaKeyPair } from '#test/support/keys';

const recipient = rsaKeyPair();
const other = rsaKeyPair();
const resolve = (kid: string | undefined) => (kid === recipient.kid ? recipient.privateKey : undefined);

async function rejection(jwe: string): Promise<ProtocolRejection> {
  return decryptJson(jwe, resolve).then(
    () => expect.fail('decryption should have been refused'),
    (error: ProtocolRejection) => error,
  );
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('encryptJson / decryptJson', () => {
  it.each(['RSA-OAEP', 'RSA-OAEP-256'] as const)(
    'round-trips JSON under %s with A256CBC-HS512',
    async (algorithm) => {
      const value = { username: 'ünïcode', ttl: 30, nested: [1, { a: null }] };
      const jwe = await encryptJson(
        value,
        { kid: recipient.kid, publicKey: recipient.publicKey },
        { algorithm },
      );
      expect(decodeProtectedHeader(jwe)).toEqual({
        alg: algorithm,
        enc: 'A256CBC-HS512',
        kid: recipient.kid,
      });
      await expect(decryptJson(jwe, resolve)).resolves.toEqual({ value, kid: recipient.kid });
    },
  );

  it('encrypts with RSA-OAEP by default, the only algorithm the Python SDK’s pinned floor decrypts', async () => {
    const jwe = await encryptJson([], { kid: recipient.kid, publicKey: recipient.publicKey });
    expect(decodeProtectedHeader(jwe).alg).toBe('RSA-OAEP');
  });

  it('marks a JSON body the way the Java SDK does when asked', async () => {
    const jwe = await encryptJson({}, recipient, {
      algorithm: 'RSA-OAEP-256',
      contentType: 'application/json',
    });
    expect(decodeProtectedHeader(jwe).cty).toBe('application/json');
    await expect(decryptJson(jwe, resolve)).resolves.toMatchObject({ value: {} });
  });

  it('refuses text that is not a compact JWE', async () => {
    expect((await rejection('{"username":"x"}')).reason).toBe('malformed');
    expect((await rejection('a.b.c')).reason).toBe('malformed');
  });

  it('refuses RSA1_5 before trying any key', async () => {
    const forged = `${segment({ alg: 'RSA1_5', enc: 'A256CBC-HS512', kid: recipient.kid })}.AAAA.AAAA.AAAA.AAAA`;
    const error = await rejection(forged);
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/RSA1_5 is not accepted/);
  });

  it('refuses a content encryption other than A256CBC-HS512', async () => {
    const jwe = await new CompactEncrypt(new TextEncoder().encode('{}'))
      .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A128GCM', kid: recipient.kid })
      .encrypt(recipient.publicKey);
    expect((await rejection(jwe)).message).toMatch(/A128GCM is not accepted/);
  });

  it('reports a kid it holds no key for', async () => {
    const jwe = await encryptJson({}, { kid: other.kid, publicKey: other.publicKey });
    expect((await rejection(jwe)).reason).toBe('unknown-key');
  });

  it('refuses a JWE encrypted to another key under a known kid', async () => {
    const jwe = await encryptJson({}, { kid: recipient.kid, publicKey: other.publicKey });
    expect((await rejection(jwe)).reason).toBe('decryption');
  });

  it('refuses tampered ciphertext', async () => {
    const parts = (await encryptJson({ a: 1 }, recipient)).split('.');
    const ciphertext = Buffer.from(parts[3] as string, 'base64url');
    ciphertext[0] = (ciphertext[0] as number) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    expect((await rejection(parts.join('.'))).reason).toBe('decryption');
  });

  it('refuses a plaintext that is not JSON', async () => {
    const jwe = await new CompactEncrypt(new TextEncoder().encode('not json'))
      .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: recipient.kid })
      .encrypt(recipient.publicKey);
    expect((await rejection(jwe)).reason).toBe('content');
  });
});
