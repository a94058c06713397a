import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { contentHash } from '#shared/protocol/content-hash';
import type { ProtocolRejection } from '#shared/protocol/rejection';
import {
  type HttpRequestBinding,
  type SignRequestJwtOptions,
  signRequestJwt,
  type VerifyRequestJwtOptions,
  verifyRequestJwt,
} from '#shared/protocol/request-jwt';
import { rsaKeyPair } from '#test/support/keys';

const signer = rsaKeyPair();
const stranger = rsaKeyPair();
const now = 1_800_000_000;
const body = 'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d';
const binding: HttpRequestBinding = { method: 'POST', path: '/organization/v3/directories/list', body };

function sign(overrides: Partial<SignRequestJwtOptions> = {}): Promise<string> {
  return signRequestJwt({
    signingKey: { kid: signer.kid, privateKey: signer.privateKey },
    issuer: 'org:6f1c7b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b',
    audience: 'lka',
    binding,
    now,
    ...overrides,
  });
}

function verify(token: string, overrides: Partial<VerifyRequestJwtOptions> = {}) {
  return verifyRequestJwt(token, {
    binding,
    audience: ['api', 'lka'],
    resolveKey: async () => signer.publicKey,
    now,
    leeway: 30,
    maxLifetime: 60,
    ...overrides,
  });
}

async function reason(token: Promise<string> | string, overrides: Partial<VerifyRequestJwtOptions> = {}) {
  return verify(await token, overrides).then(
    () => expect.fail('verification should have failed'),
    (error: ProtocolRejection) => `${error.reason}: ${error.message}`,
  );
}

/** A token with exactly these claims, signed by `signer` under alg. */
function rawToken(claims: Record<string, unknown>, alg = 'RS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid: signer.kid }).sign(signer.privateKey);
}

const validClaims = {
  iss: 'org:6f1c7b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b',
  aud: 'lka',
  jti: 'b0f7c5d2-1111-4a4a-9b9b-2c2c2c2c2c2c',
  iat: now,
  nbf: now,
  exp: now + 5,
  request: { meth: 'POST', path: binding.path, hash: contentHash('S256', body), func: 'S256' },
};

describe('signRequestJwt / verifyRequestJwt', () => {
  it.each(['RS256', 'RS384', 'RS512'] as const)(
    'accepts %s with the claims the SDKs send',
    async (algorithm) => {
      const { claims, request } = await verify(await sign({ algorithm, hashFunction: 'S512' }));
      expect(claims).toMatchObject({ aud: 'lka', iat: now, nbf: now, exp: now + 5 });
      expect(request).toEqual({
        meth: 'POST',
        path: binding.path,
        hash: contentHash('S512', body),
        func: 'S512',
      });
    },
  );

  it('ignores the extra alg claim the Python SDK adds', async () => {
    await expect(verify(await rawToken({ ...validClaims, alg: 'RS256' }))).resolves.toBeDefined();
  });

  it('sends neither hash nor func without a body', async () => {
    const get = { method: 'GET', path: '/organization/v3/directories' };
    const { request } = await verify(await sign({ binding: get }), { binding: get });
    expect(request).toEqual({ meth: 'GET', path: '/organization/v3/directories' });
  });

  it('binds the query string when there is one', async () => {
    const withQuery = { method: 'GET', path: '/x', query: 'a=1&b=2' };
    await expect(verify(await sign({ binding: withQuery }), { binding: withQuery })).resolves.toBeDefined();
    expect(await reason(sign({ binding: withQuery }), { binding: { ...withQuery, query: 'a=1' } })).toMatch(
      /^binding: request.query/,
    );
    expect(await reason(sign({ binding: { method: 'GET', path: '/x' } }), { binding: withQuery })).toMatch(
      /^binding/,
    );
  });

  it.each([
    [
      'alg none',
      () =>
        new SignJWT(validClaims)
          .setProtectedHeader({ alg: 'none', kid: signer.kid })
          .sign(signer.privateKey)
          .catch(() => `${segment({ alg: 'none', kid: signer.kid })}.${segment(validClaims)}.`),
      /^signature: JWS alg none/,
    ],
    [
      'HS256',
      () =>
        new SignJWT(validClaims)
          .setProtectedHeader({ alg: 'HS256', kid: signer.kid })
          .sign(new Uint8Array(32)),
      /^signature: JWS alg HS256/,
    ],
    ['PS256', () => rawToken(validClaims, 'PS256'), /^signature: JWS alg PS256/],
    [
      'a header without kid',
      () => new SignJWT(validClaims).setProtectedHeader({ alg: 'RS256' }).sign(signer.privateKey),
      /^malformed: .*no kid/,
    ],
    [
      'a signature by another key',
      () =>
        new SignJWT(validClaims)
          .setProtectedHeader({ alg: 'RS256', kid: signer.kid })
          .sign(stranger.privateKey),
      /^signature/,
    ],
    ['two segments', async () => 'abc.def', /^malformed/],
    ['a wrong audience', () => rawToken({ ...validClaims, aud: 'svc' }), /^claims: .*aud/],
    [
      'an expired token',
      () => rawToken({ ...validClaims, iat: now - 100, nbf: now - 100, exp: now - 31 }),
      /^claims: .*exp/,
    ],
    [
      'nbf beyond the leeway',
      () => rawToken({ ...validClaims, nbf: now + 31, exp: now + 40 }),
      /^claims: .*nbf/,
    ],
    [
      'iat beyond the leeway',
      () => rawToken({ ...validClaims, iat: now + 31, nbf: now, exp: now + 40 }),
      /^claims: .*iat/,
    ],
    [
      'a lifetime over the bound',
      () => rawToken({ ...validClaims, exp: now + 61 }),
      /^claims: token lifetime 61s/,
    ],
    ['no jti', () => rawToken({ ...validClaims, jti: undefined }), /^claims: .*jti/],
    ['no iat', () => rawToken({ ...validClaims, iat: undefined }), /^claims: .*iat/],
    [
      'no request claim',
      () => rawToken({ ...validClaims, request: undefined }),
      /^binding: the request claim is missing/,
    ],
    [
      'another method',
      () => rawToken({ ...validClaims, request: { ...validClaims.request, meth: 'PUT' } }),
      /^binding: request.meth/,
    ],
    [
      'another path',
      () => rawToken({ ...validClaims, request: { ...validClaims.request, path: '/other' } }),
      /^binding: request.path/,
    ],
    [
      'a hash of other bytes',
      () => rawToken({ ...validClaims, request: { ...validClaims.request, hash: contentHash('S256', 'x') } }),
      /^binding: the body hash does not match/,
    ],
    [
      'an unknown func',
      () => rawToken({ ...validClaims, request: { ...validClaims.request, func: 'S1' } }),
      /^binding: unknown hash function S1/,
    ],
    [
      'a body without hash',
      () => rawToken({ ...validClaims, request: { meth: 'POST', path: binding.path } }),
      /^binding: hash and func are required/,
    ],
  ])('refuses %s', async (_, token, expected) => {
    expect(await reason(token())).toMatch(expected);
  });

  it('refuses a hash when there is no body', async () => {
    const get = { method: 'POST', path: binding.path };
    expect(await reason(sign(), { binding: get })).toMatch(/^binding: hash and func must be absent/);
  });

  it('accepts times within the leeway', async () => {
    const skewed = await rawToken({ ...validClaims, iat: now + 29, nbf: now + 29, exp: now + 34 });
    await expect(verify(skewed)).resolves.toBeDefined();
  });

  it('passes the header and unverified claims to the key resolver, and stops at its refusal', async () => {
    const seen: unknown[] = [];
    const token = await sign();
    await verify(token, {
      resolveKey: async (header, claims) => {
        seen.push(header.kid, claims.iss);
        return signer.publicKey;
      },
    });
    expect(seen).toEqual([signer.kid, validClaims.iss]);
  });
});

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
