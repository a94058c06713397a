import { describe, expect, it } from 'vitest';
import {
  canReceiveEncryption,
  canVerifySignatures,
  type EntityKey,
  KeyType,
  responseEncryptionKey,
} from '#shared/domain/entity-key';

const now = new Date('2026-11-22T12:00:00Z');

function key(kid: string, overrides: Partial<EntityKey> = {}): EntityKey {
  return {
    kid,
    publicKeyPem: '',
    keyType: KeyType.both,
    active: true,
    created: '2026-01-01T00:00:00Z',
    expires: null,
    ...overrides,
  };
}

describe('which keys may do what', () => {
  it.each([
    ['a dual-use key', key('a'), true, true],
    ['an encryption-only key', key('a', { keyType: KeyType.encryption }), false, true],
    ['a signature-only key', key('a', { keyType: KeyType.signature }), true, false],
    ['an inactive key', key('a', { active: false }), false, false],
    ['an expired key', key('a', { expires: '2026-11-22T11:59:59Z' }), false, false],
    ['a key expiring later', key('a', { expires: '2026-11-22T12:00:01Z' }), true, true],
  ])('%s: verify %s, receive encryption %s', (_, candidate, verifies, receives) => {
    expect(canVerifySignatures(candidate, now)).toBe(verifies);
    expect(canReceiveEncryption(candidate, now)).toBe(receives);
  });
});

describe('responseEncryptionKey', () => {
  it('prefers the dual-use key that signed the request, which the caller surely holds', () => {
    const keys = [
      key('signer'),
      key('enc', { keyType: KeyType.encryption, created: '2026-06-01T00:00:00Z' }),
    ];
    expect(responseEncryptionKey(keys, 'signer', now)?.kid).toBe('signer');
  });

  it('uses the encryption key when the signer is signature-only (single-purpose keys feature)', () => {
    const keys = [key('signer', { keyType: KeyType.signature }), key('enc', { keyType: KeyType.encryption })];
    expect(responseEncryptionKey(keys, 'signer', now)?.kid).toBe('enc');
  });

  it('prefers dedicated encryption keys, then the newest', () => {
    const keys = [
      key('signer', { keyType: KeyType.signature }),
      key('old-both', { created: '2026-01-01T00:00:00Z' }),
      key('new-both', { created: '2026-05-01T00:00:00Z' }),
      key('old-enc', { keyType: KeyType.encryption, created: '2026-02-01T00:00:00Z' }),
      key('new-enc', { keyType: KeyType.encryption, created: '2026-03-01T00:00:00Z' }),
    ];
    expect(responseEncryptionKey(keys, 'signer', now)?.kid).toBe('new-enc');
    expect(responseEncryptionKey(keys.slice(0, 3), 'signer', now)?.kid).toBe('new-both');
  });

  it('skips inactive and expired keys, and finds none when none can receive', () => {
    const keys = [
      key('signer', { keyType: KeyType.signature }),
      key('off', { active: false }),
      key('gone', { expires: '2026-01-01T00:00:00Z' }),
    ];
    expect(responseEncryptionKey(keys, 'signer', now)).toBeUndefined();
  });
});
