import { describe, expect, it } from 'vitest';
import type { ProtocolRejection } from '#shared/protocol/rejection';
import {
  type SignResponseJwtOptions,
  signResponseJwt,
  verifyResponseJwt,
} from '#shared/protocol/response-jwt';
import { rsaKeyPair } from '#test/support/keys';

const api = rsaKeyPair();
const now = 1_800_000_000;
const caller = 'svc:6f1c7b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';
const jti = '0a0a0a0a-1111-4a4a-9b9b-2c2c2c2c2c2c';

function sign(overrides: Partial<SignResponseJwtOptions> = {}) {
  return signResponseJwt({
    signingKey: { kid: api.kid, privateKey: api.privateKey },
    issuer: 'lka',
    audience: caller,
    subject: caller,
    jti,
    binding: { status: 200, body: 'a.b.c.d.e' },
    now,
    ...overrides,
  });
}

async function verify(
  token: string,
  binding: Parameters<typeof verifyResponseJwt>[1]['binding'],
  expectedJti = jti,
) {
  return verifyResponseJwt(token, {
    binding,
    issuer: 'lka',
    audience: caller,
    subject: caller,
    jti: expectedJti,
    resolveKey: async () => api.publicKey,
    now,
    leeway: 30,
    maxLifetime: 300,
  });
}

async function reason(token: string, binding: Parameters<typeof verify>[1], expectedJti = jti) {
  return verify(token, binding, expectedJti).then(
    () => expect.fail('verification should have failed'),
    (error: ProtocolRejection) => `${error.reason}: ${error.message}`,
  );
}

describe('response JWTs', () => {
  it('carry iss, aud, sub, jti and the response claim the SDKs check (docs/protocol.md#response-jwt)', async () => {
    const claims = await verify(await sign(), { status: 200, body: 'a.b.c.d.e' });
    expect(claims).toMatchObject({ iss: 'lka', aud: caller, sub: caller, jti, iat: now, nbf: now });
    expect(claims.response).toEqual({
      status: 200,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      func: 'S256',
    });
  });

  it('carry no hash for an empty body', async () => {
    const claims = await verify(await sign({ binding: { status: 204, body: '' } }), {
      status: 204,
      body: '',
    });
    expect(claims.response).toEqual({ status: 204 });
  });

  it('fail on another status, as the Java SDK compares it', async () => {
    expect(await reason(await sign(), { status: 201, body: 'a.b.c.d.e' })).toMatch(
      /^binding: response.status 200 is not 201/,
    );
  });

  it('fail on another request’s jti', async () => {
    expect(await reason(await sign(), { status: 200, body: 'a.b.c.d.e' }, 'other')).toMatch(/^claims: .*jti/);
  });

  it('fail when a Location or Cache-Control header is not mirrored', async () => {
    const token = await sign();
    expect(await reason(token, { status: 200, body: 'a.b.c.d.e', cache: 'no-store' })).toMatch(
      /response.cache/,
    );
    expect(await reason(token, { status: 200, body: 'a.b.c.d.e', location: '/x' })).toMatch(
      /response.location/,
    );
    const mirrored = await sign({
      binding: { status: 201, body: 'a.b.c.d.e', location: '/x', cache: 'no-store' },
    });
    await expect(
      verify(mirrored, { status: 201, body: 'a.b.c.d.e', location: '/x', cache: 'no-store' }),
    ).resolves.toBeDefined();
  });

  it('fail when the body was changed', async () => {
    expect(await reason(await sign(), { status: 200, body: 'a.b.c.d.f' })).toMatch(/^binding: the body hash/);
  });
});
