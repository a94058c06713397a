import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  openUserPushId,
  organizationUserHash,
  seal,
  serviceUserHash,
  unseal,
  userPushId,
} from '#shared/domain/user-identity';

const hashKey = randomBytes(32);
const otherKey = randomBytes(32);
const [service, otherService, user, otherUser] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];

describe('service_user_hash and org_user_hash', () => {
  it('are stable for one service or organization and user, and differ for another of either', () => {
    expect(serviceUserHash(hashKey, service, user)).toBe(serviceUserHash(hashKey, service, user));
    expect(serviceUserHash(hashKey, service, user)).not.toBe(serviceUserHash(hashKey, otherService, user));
    expect(serviceUserHash(hashKey, service, user)).not.toBe(serviceUserHash(hashKey, service, otherUser));
    expect(organizationUserHash(hashKey, service, user)).not.toBe(serviceUserHash(hashKey, service, user));
    expect(serviceUserHash(otherKey, service, user)).not.toBe(serviceUserHash(hashKey, service, user));
  });

  it('reveal nothing of the ids: 64 hex characters', () => {
    const hash = serviceUserHash(hashKey, service, user);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(user.replaceAll('-', '').slice(0, 8));
  });
});

describe('user_push_id', () => {
  it('is stable per service and user, and opens to them', () => {
    const pushId = userPushId(hashKey, service, user);
    expect(userPushId(hashKey, service, user)).toBe(pushId);
    expect(userPushId(hashKey, otherService, user)).not.toBe(pushId);
    expect(pushId).toMatch(/^[\w-]{80}$/);
    expect(openUserPushId(hashKey, pushId)).toEqual({ serviceId: service, userId: user });
  });

  it('does not open under another key, nor once any character changes', () => {
    const pushId = userPushId(hashKey, service, user);
    expect(openUserPushId(otherKey, pushId)).toBeUndefined();
    fc.assert(
      fc.property(fc.nat(pushId.length - 1), fc.constantFrom(...'ABCabc019-_'), (at, character) => {
        fc.pre(pushId[at] !== character);
        const forged = `${pushId.slice(0, at)}${character}${pushId.slice(at + 1)}`;
        expect(openUserPushId(hashKey, forged)).toBeUndefined();
      }),
    );
  });

  it.each(['', 'alice', 'a'.repeat(80), `${userPushId(hashKey, service, user)}=`])(
    'treats %j as no push id',
    (text) => {
      expect(openUserPushId(hashKey, text)).toBeUndefined();
    },
  );
});

describe('seal', () => {
  it('opens what it sealed, only for the same purpose and key', () => {
    const sealed = seal(hashKey, 'totp', 'JBSWY3DPEHPK3PXP', randomBytes(12));
    expect(unseal(hashKey, 'totp', sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => unseal(hashKey, 'other', sealed)).toThrow();
    expect(() => unseal(otherKey, 'totp', sealed)).toThrow();
  });
});
