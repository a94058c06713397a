import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateApiKey,
  openApiKeyRing,
  parseApiKeyRingDocument,
  withApiKey,
  withCurrentApiKey,
  withoutApiKey,
  withoutLegacyParts,
} from '#shared/api-keys/key-ring';
import { keyId } from '#shared/protocol/kid';

const first = generateApiKey(2048, new Date('2026-11-22T10:00:00.123Z'));
const second = generateApiKey(2048);

describe('the API key ring', () => {
  it('generates keys whose kid is their fingerprint, dated to the second', () => {
    expect(first.kid).toBe(keyId(openApiKeyRing(withApiKey(undefined, first, true)).current.privateKey));
    expect(first.created).toBe('2026-11-22T10:00:00Z');
    expect(first.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it('starts with its first key current, whatever was asked', () => {
    expect(withApiKey(undefined, first, false).current).toBe(first.kid);
  });

  it('rotates by adding a current key while keeping the old one for decryption', () => {
    const rotated = withApiKey(withApiKey(undefined, first, true), second, true);
    const ring = openApiKeyRing(rotated);
    expect(ring.current.kid).toBe(second.kid);
    expect(ring.decryptionKey(first.kid)).toBeDefined();
    expect(ring.decryptionKey(second.kid)).toBe(ring.current.privateKey);
    expect(ring.decryptionKey(undefined)).toBe(ring.current.privateKey);
    expect(ring.decryptionKey('00:11')).toBeUndefined();
  });

  it('revokes a key that is not current: it no longer decrypts, and a ring not yet split keeps its hash key', () => {
    const legacy = { ...withApiKey(undefined, first, true), hashKey: randomBytes(32).toString('base64') };
    const rotated = withApiKey(legacy, second, true);
    const revoked = withoutApiKey(rotated, first.kid);
    expect(revoked.hashKey).toBe(legacy.hashKey);
    const ring = openApiKeyRing(revoked);
    expect(ring.decryptionKey(first.kid)).toBeUndefined();
    expect(ring.privateKeys).toEqual([ring.current.privateKey]);
    expect(() => withoutApiKey(rotated, second.kid)).toThrow(
      `API key ${second.kid} is the current key and cannot be revoked; rotate to another key first`,
    );
    expect(() => withoutApiKey(revoked, first.kid)).toThrow(/no key/);
  });

  it('adds without rotating when asked, and can make an older key current again', () => {
    const added = withApiKey(withApiKey(undefined, first, true), second, false);
    expect(added.current).toBe(first.kid);
    expect(withCurrentApiKey(added, second.kid).current).toBe(second.kid);
    expect(() => withCurrentApiKey(added, 'nope')).toThrow(/no key nope/);
  });

  it('refuses a ring whose kid does not match its key, or whose current key is missing', () => {
    expect(() => openApiKeyRing({ current: first.kid, keys: [{ ...first, kid: second.kid }] })).toThrow(
      /does not match/,
    );
    expect(() => openApiKeyRing({ current: second.kid, keys: [first] })).toThrow(
      /no key for its current kid/,
    );
  });

  it('drops the parts an older ring held, once they are kept apart', () => {
    const legacy = { ...withApiKey(undefined, first, true), hashKey: 'x', splitAt: '2026-01-01T00:00:00Z' };
    expect(withoutLegacyParts(legacy)).toEqual({ current: first.kid, keys: [first] });
  });

  it('parses only documents with current and keys', () => {
    expect(() => parseApiKeyRingDocument('{"keys":[]}')).toThrow(/needs "current" and "keys"/);
    expect(parseApiKeyRingDocument(JSON.stringify({ current: 'a', keys: [] }))).toEqual({
      current: 'a',
      keys: [],
    });
  });
});
