import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { exportJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FuzzTarget, RawRequest } from '#test/support/fuzz-harness';
import { startFuzzTarget } from '#test/support/fuzz-harness';
import { fuzzRuns, hostileJson, hostileText } from '#test/support/hostile';
import { rsaKeyPair, type TestKeyPair } from '#test/support/keys';

/**
 * Hostile input in the Authorization header of a signed request. Every request runs in-process through the
 * route table's handlers; every answer must keep the invariants of `checkAnswer`, and a token that was tampered with
 * must be refused with 401 and the AUTH code its defect calls for.
 */
let target: FuzzTarget;
let stranger: TestKeyPair;

beforeAll(async () => {
  target = await startFuzzTarget();
  stranger = rsaKeyPair();
});
afterAll(async () => {
  await target?.stop();
});

const path = '/organization/v3/directories';

/** Signed paths without a body: real routes, a route of another subject, and unknown operations. */
const bodylessTargets = [
  path,
  '/organization/v3/services',
  '/directory/v3/services',
  `/service/v3/auths/${randomUUID()}`,
  '/device/v3/auths',
  '/device/v3/sessions',
  '/organization/v3/unknown',
  '/service/v3',
];

async function run(request: RawRequest) {
  return target.check(request, await target.invoke(request));
}

async function expectRefused(request: RawRequest, codes: readonly string[]) {
  const answer = await run(request);
  expect({ status: answer.status, code: answer.code }).toEqual({
    status: 401,
    code: expect.toBeOneOf([...codes]),
  });
}

/** The refusals of a token that is not one the API can verify: malformed, unknown key, bad algorithm or signature. */
const refusedToken = ['AUTH-001', 'AUTH-002', 'AUTH-003'];
const tokenRefusal = () => ({ status: 401, code: expect.toBeOneOf(refusedToken) });

const valid = (overrides: Partial<Parameters<FuzzTarget['sign']>[0]> = {}) =>
  target.sign({ method: 'GET', target: path, ...overrides });

function withAuthorization(request: RawRequest, authorization: string | undefined): RawRequest {
  const { authorization: _dropped, ...headers } = request.headers;
  return { ...request, headers: authorization === undefined ? headers : { ...headers, authorization } };
}

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** The bytes jose reads from a base64url segment (strict alphabet, forgiving padding), or undefined if it cannot. */
function joseBytes(segment: string): string | undefined {
  if (/[+/]/.test(segment)) return undefined;
  try {
    return atob(segment.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

const schemes = fc.constantFrom(
  'IOV-JWT',
  'API-JWT',
  'iov-jwt',
  'Iov-Jwt',
  'Bearer',
  'Basic',
  'IOV-JWT:',
  'IOV_JWT',
  'IOV-JWT\u200b',
  'ＩＯＶ-JWT',
  '',
);
const base64urlish = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.% \u00e9'),
  maxLength: 60,
});

describe('an Authorization header that is not a signed JWT', () => {
  it('is refused with 401 (AUTH-001 to AUTH-003), whatever it holds', async () => {
    const header = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      hostileText({ maxLength: 20 }),
      fc
        .tuple(schemes, fc.array(base64urlish, { minLength: 0, maxLength: 7 }))
        .map(([scheme, segments]) => `${scheme} ${segments.join('.')}`),
      fc
        .tuple(schemes, fc.array(hostileJson(), { minLength: 1, maxLength: 4 }))
        .map(([scheme, parts]) => `${scheme} ${parts.map((part) => b64(part)).join('.')}`),
      // Huge tokens: far beyond any header limit of a gateway, but a handler must still cope.
      fc
        .constantFrom(10_000, 100_000, 1_000_000)
        .map((size) => `IOV-JWT ${'e'.repeat(size)}.${'e'.repeat(size)}.${'e'.repeat(size)}`),
    );
    await fc.assert(
      fc.asyncProperty(header, fc.constantFrom(...bodylessTargets), async (authorization, where) => {
        const request = { method: 'GET', target: where, headers: { authorization } };
        await expectRefused(request, ['AUTH-001', 'AUTH-002', 'AUTH-003']);
      }),
      fuzzRuns(250),
    );
  });

  it('is refused when the header is absent or repeated', async () => {
    const request = await valid();
    await expectRefused(withAuthorization(request, undefined), ['AUTH-001']);
    await expectRefused(
      withAuthorization(request, `${request.headers.authorization}, ${request.headers.authorization}`),
      ['AUTH-001'],
    );
  });
});

describe('a request JWT whose parts were tampered with', () => {
  const headerMutation = fc.oneof(
    fc.constantFrom<Record<string, unknown>>(
      { alg: 'none' },
      { alg: 'None' },
      { alg: 'HS256' },
      { alg: 'HS512' },
      { alg: 'ES256' },
      { alg: 'PS256' },
      { alg: 'RS1' },
      { alg: '' },
      { alg: null },
      { alg: ['RS256'] },
      { kid: undefined },
      { kid: '' },
      { kid: 7 },
      { kid: { $ne: null } },
      { kid: '../../etc/passwd' },
      { kid: 'x'.repeat(100_000) },
      { crit: ['exp'] },
      { crit: ['b64'], b64: false },
      { jku: 'https://attacker.example/jwks' },
      { x5u: 'https://attacker.example/cert' },
      { typ: 'JWE' },
      { zip: 'DEF' },
      { enc: 'A256CBC-HS512' },
    ),
    fc.record({ alg: hostileJson(), kid: hostileJson() }, { requiredKeys: [] }),
    fc.dictionary(hostileText({ minLength: 1, maxLength: 3 }), hostileJson(), { maxKeys: 3 }),
  );

  it('a header changed after signing is refused (AUTH-001/002/003)', async () => {
    await fc.assert(
      fc.asyncProperty(headerMutation, async (mutation) => {
        const request = await valid();
        const [, payload, signature] = (request.headers.authorization as string)
          .slice('IOV-JWT '.length)
          .split('.');
        const header = Object.fromEntries(
          Object.entries({ alg: 'RS256', kid: target.organization.kid, ...mutation }).filter(
            ([, value]) => value !== undefined,
          ),
        );
        const token = `${b64(header)}.${payload}.${signature}`;
        fc.pre(token !== (request.headers.authorization as string).slice('IOV-JWT '.length));
        await expectRefused(withAuthorization(request, `IOV-JWT ${token}`), refusedToken);
      }),
      fuzzRuns(120),
    );
  });

  it('a header changed and signed again with the real key is refused unless it is still RS256/384/512 with our kid', async () => {
    await fc.assert(
      fc.asyncProperty(headerMutation, async (mutation) => {
        const header = { alg: 'RS256', kid: target.organization.kid, ...mutation };
        const signable = typeof header.alg === 'string' && /^(RS|PS)(256|384|512)$|^none$/.test(header.alg);
        fc.pre(signable);
        // jose refuses to sign some headers (an unknown crit): those are not requests a client could send.
        const request = await valid({ header: mutation }).catch(() => undefined);
        fc.pre(request !== undefined);
        const answer = await run(request);
        const acceptable =
          /^RS(256|384|512)$/.test(header.alg as string) && header.kid === target.organization.kid;
        const unsupported = 'crit' in mutation || 'b64' in mutation;
        expect({ status: answer.status, code: answer.code }).toEqual(
          acceptable && !unsupported ? { status: 200 } : tokenRefusal(),
        );
      }),
      fuzzRuns(60),
    );
  });

  it("a token signed by a stranger's key under our kid, even with its key embedded, is AUTH-003", async () => {
    const jwk = await exportJWK(stranger.publicKey);
    for (const header of [{}, { jwk }, { jwk, kid: undefined }]) {
      const request = await valid({
        header,
        signer: { ...target.organization, privateKey: stranger.privateKey },
      });
      await expectRefused(request, header.kid === undefined && 'kid' in header ? ['AUTH-001'] : ['AUTH-003']);
    }
  });

  it('a signature or segment changed after signing is refused unless jose reads the same bytes', async () => {
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant('replace' as const),
        segment: fc.integer({ min: 0, max: 2 }),
        at: fc.nat(),
        by: fc.constantFrom(...'AQgw_-+/=.% \u00e90'),
      }),
      fc.record({
        kind: fc.constant('truncate' as const),
        segment: fc.integer({ min: 0, max: 2 }),
        at: fc.nat(),
      }),
      fc.record({
        kind: fc.constant('segments' as const),
        change: fc.constantFrom('drop-signature', 'extra', 'two-extra', 'swap', 'duplicate-payload', 'empty'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (change) => {
        const request = await valid();
        const token = (request.headers.authorization as string).slice('IOV-JWT '.length);
        const parts = token.split('.') as [string, string, string];
        let mutated: string[] = [...parts];
        if (change.kind === 'segments') {
          mutated = {
            'drop-signature': [parts[0], parts[1]],
            extra: [...parts, parts[2]],
            'two-extra': [...parts, '', ''],
            swap: [parts[1], parts[0], parts[2]],
            'duplicate-payload': [parts[0], parts[1], parts[1]],
            empty: [parts[0], parts[1], ''],
          }[change.change];
        } else {
          const original = parts[change.segment] as string;
          const at = change.at % Math.max(1, original.length);
          mutated[change.segment] =
            change.kind === 'replace'
              ? `${original.slice(0, at)}${change.by}${original.slice(at + 1)}`
              : original.slice(0, at);
        }
        const changedToken = mutated.join('.');
        fc.pre(changedToken !== token);
        const answer = await run(withAuthorization(request, `IOV-JWT ${changedToken}`));
        // Base64 leaves slack in a segment's last character: the same signature bytes can be spelled two ways.
        const sameBytes =
          mutated.length === 3 &&
          mutated[0] === parts[0] &&
          mutated[1] === parts[1] &&
          joseBytes(mutated[2] as string) !== undefined &&
          joseBytes(mutated[2] as string) === joseBytes(parts[2]);
        expect({ status: answer.status, code: answer.code }).toEqual(
          sameBytes ? { status: 200 } : tokenRefusal(),
        );
      }),
      fuzzRuns(120),
    );
  });
});

describe('claims signed with the real key', () => {
  const now = () => Math.floor(Date.now() / 1000);
  type ClaimCase = { claims?: Record<string, unknown>; request?: Record<string, unknown>; subject?: string };
  /** Each mutation with the refusal it must earn, or undefined when it may legitimately pass. */
  const mutation: fc.Arbitrary<{ change: ClaimCase; expected: string | undefined }> = fc.oneof(
    fc
      .constantFrom<unknown>(
        'lka',
        'org',
        'org:',
        'org:not-a-uuid',
        `org:${randomUUID()}x`,
        ` org:${randomUUID()}`,
        7,
        null,
        [],
        {},
      )
      .map((iss) => ({ change: { claims: { iss, sub: undefined } }, expected: 'AUTH-001' })),
    fc
      .uuid()
      .map((id) => ({ change: { claims: { iss: `org:${id}`, sub: undefined } }, expected: 'AUTH-002' })),
    fc
      .constantFrom<unknown>('someone', 'svc:', 'org:x', 'usr:0', 7, null, [])
      .map((sub) => ({ change: { claims: { sub } }, expected: 'AUTH-004' })),
    fc
      .constantFrom<unknown>('', 'LKA', 'lka ', 'api2', ['svc'], [], 7, null, { lka: true })
      .map((aud) => ({ change: { claims: { aud } }, expected: 'AUTH-004' })),
    fc.constantFrom<unknown>(['lka', 'x'], ['x', 'api'], 'api').map((aud) => ({
      change: { claims: { aud } },
      expected: undefined,
    })),
    fc
      .constantFrom<unknown>(undefined, '', 7, null, [], {}, 'j'.repeat(129), 'j'.repeat(100_000))
      .map((jti) => ({ change: { claims: { jti } }, expected: 'AUTH-004' })),
    fc
      .record({
        claim: fc.constantFrom('iat', 'nbf', 'exp'),
        value: fc.constantFrom<unknown>(undefined, 'now', null, [], {}, -1, 0, 1e308, -1e308, 'NaN'),
      })
      // An nbf in the past, or none, is fine.
      .filter(
        ({ claim, value }) =>
          !(claim === 'nbf' && (value === undefined || (typeof value === 'number' && value <= 0))),
      )
      .map(({ claim, value }) => ({ change: { claims: { [claim]: value } }, expected: 'AUTH-004' })),
    fc
      // Past the 30 s leeway: a token from 36 s ago expired (exp = iat + 5) 31 s ago.
      .record({ skew: fc.integer({ min: 36, max: 10_000 }), sign: fc.constantFrom(-1, 1) })
      .map(({ skew, sign }) => {
        const at = now() + sign * skew;
        return { change: { claims: { iat: at, nbf: at, exp: at + 5 } }, expected: 'AUTH-004' };
      }),
    fc
      .integer({ min: 61, max: 1_000_000 })
      .map((lifetime) => ({ change: { claims: { exp: now() + lifetime } }, expected: 'AUTH-004' })),
    fc
      .constantFrom<unknown>(undefined, null, 'GET /organization/v3/directories', [], 7)
      .map((request) => ({ change: { claims: { request } }, expected: 'AUTH-005' })),
    fc
      .constantFrom<Record<string, unknown>>(
        { meth: 'get' },
        { meth: 'POST' },
        { meth: undefined },
        { meth: ['GET'] },
        { path: `${path}/` },
        { path: path.toUpperCase() },
        { path: '/organization/v3/%64irectories' },
        { path: `/organization/v3/../v3/directories` },
        { path: undefined },
        { path: `${path}?` },
        { query: 'a=1' },
        { query: ['a'] },
        { hash: 'ab', func: 'S256' },
        { hash: '', func: 'S256' },
        { func: 'S256' },
        { hash: 'x' },
      )
      .map((request) => ({ change: { request }, expected: 'AUTH-005' })),
    fc
      .dictionary(
        fc.oneof(
          fc.constantFrom('__proto__', 'constructor', 'alg', 'cty', 'typ', 'kid'),
          fc.string({ maxLength: 8 }),
        ),
        hostileJson(),
        { minKeys: 1, maxKeys: 3 },
      )
      .filter(
        (extra) => !['iss', 'sub', 'aud', 'jti', 'iat', 'nbf', 'exp', 'request'].some((key) => key in extra),
      )
      .map((claims) => ({ change: { claims }, expected: undefined })),
  );

  it('a wrong claim earns the refusal its defect calls for; unknown claims are ignored', async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async ({ change, expected }) => {
        const answer = await run(await valid(change));
        expect({ status: answer.status, code: answer.code }).toEqual(
          expected === undefined ? { status: 200 } : { status: 401, code: expected },
        );
      }),
      fuzzRuns(200),
    );
  });

  it('a sub the issuer does not own is 403, on any route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('org', 'dir', 'svc', 'dev'),
        fc.uuid(),
        fc.constantFrom(...bodylessTargets),
        async (type, id, where) => {
          const answer = await run(await valid({ target: where, subject: `${type}:${id}` }));
          expect({ status: answer.status, code: answer.code }).toEqual({ status: 403, code: 'HTTP-403' });
        },
      ),
      fuzzRuns(40),
    );
  });

  it('tokens on the other signed routes keep the invariants too', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...bodylessTargets),
        fc.constantFrom('GET', 'DELETE', 'POST', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'get'),
        fc.option(fc.constantFrom('IOV-JWT', 'API-JWT', 'api-jwt'), { nil: undefined }),
        async (where, method, scheme) => {
          const answer = await run(
            await target.sign({ method, target: where, ...(scheme ? { scheme } : {}) }),
          );
          expect(answer.status).toBeLessThan(500);
        },
      ),
      fuzzRuns(60),
    );
  });

  it('a replay of a token that was refused for its path is still refused', async () => {
    const request = await valid({ request: { path: '/elsewhere' } });
    await expectRefused(request, ['AUTH-005']);
    await expectRefused(request, ['AUTH-005', 'AUTH-006']);
  });
});

describe('after the fuzz run', () => {
  it('a valid request still works, and a replay of it is AUTH-006', async () => {
    const request = await valid();
    const answer = await run(request);
    expect(answer.status).toBe(200);
    expect(Array.isArray(answer.json)).toBe(true);
    await expectRefused(request, ['AUTH-006']);
  });
});
