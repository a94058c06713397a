import { createPrivateKey, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { encryptJson } from '#shared/protocol/jwe';
import type { KeyMaterial } from '#shared/protocol/jws';
import { keyId } from '#shared/protocol/kid';
import { type ForgeSpec, forge, send } from '#test/support/forge';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;
let client: ApiClient;
let base: Omit<ForgeSpec, 'baseUrl'> & { baseUrl: string };
let apiKey: { kid: string; publicKey: KeyMaterial };
let addEntityKey: typeof import('#shared/use-cases/entity-keys').addEntityKey;
let putOrganization: typeof import('#shared/store/organizations').putOrganization;

beforeAll(async () => {
  service = await startTestRuntime();
  client = service.client();
  const privateKey = createPrivateKey(service.organizationKeyPem);
  base = { baseUrl: service.baseUrl, issuer: service.issuer, kid: keyId(privateKey), privateKey };
  apiKey = await client.currentApiKey();
  ({ addEntityKey } = await import('#shared/use-cases/entity-keys'));
  ({ putOrganization } = await import('#shared/store/organizations'));
});
afterAll(async () => {
  await service?.stop();
});

/** The error a forged request earns, after the client has verified the response's JWT like an SDK would. */
async function refusal(spec: Partial<ForgeSpec>): Promise<ApiRequestError> {
  const { response, prepared } = await forge({ ...base, ...spec });
  return client.verifyResponse(prepared, response).then(
    () => expect.fail(`expected a refusal, got ${response.status}`),
    (error: unknown) => {
      if (!(error instanceof ApiRequestError)) throw error;
      return error;
    },
  );
}

async function expectRefusal(spec: Partial<ForgeSpec>, status: number, code: string, detail?: RegExp) {
  const error = await refusal(spec);
  expect({ status: error.status, code: error.errorCode }).toEqual({ status, code });
  if (detail) expect(String(error.errorDetail)).toMatch(detail);
}

const listBody = async (value: unknown = { directory_ids: [] }) => encryptJson(value, apiKey);

/** Registers another key on a fresh organization and returns what signing with it needs. */
async function organizationWithKeys(
  ...keys: { keyType?: number; active?: boolean; expires?: string | null }[]
) {
  const id = randomUUID();
  await putOrganization({ id, name: `Org ${id}`, created: '2026-11-22T00:00:00Z' });
  const pairs = [];
  for (const key of keys) {
    const pair = rsaKeyPair();
    await addEntityKey({ type: 'org', id }, { publicKeyPem: pair.publicPem, ...key });
    pairs.push(pair);
  }
  return { issuer: `org:${id}`, pairs };
}

describe('a valid signed request', () => {
  it('gets an encrypted answer with one JWT in both X-API-JWT and X-IOV-JWT, and no unmirrored headers', async () => {
    const { response, prepared } = await forge({
      ...base,
      method: 'POST',
      path: '/organization/v3/directories/list',
      body: await listBody(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-iov-jwt')).toBe(response.headers.get('x-api-jwt'));
    expect(response.headers.get('cache-control')).toBeNull();
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toBe('application/jose');
    const answer = await client.verifyResponse(prepared, response.clone());
    expect(answer.body).toEqual([]);
    const jwe = await response.text();
    expect(decodeProtectedHeader(jwe)).toEqual({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: base.kid });
  });

  it('is answered with the claims the SDKs check (docs/protocol.md#response-jwt)', async () => {
    const { response, prepared } = await forge(base);
    const token = response.headers.get('x-iov-jwt') as string;
    const { payload, protectedHeader } = await jwtVerify(
      token,
      await client.apiKey(decodeProtectedHeader(token).kid as string),
    );
    expect(protectedHeader).toMatchObject({ alg: 'RS512', kid: apiKey.kid });
    expect(payload).toMatchObject({
      iss: 'lka',
      aud: service.issuer,
      sub: service.issuer,
      jti: prepared.jti,
    });
    expect(payload.response).toMatchObject({ status: 200, func: 'S256' });
    expect(typeof payload.iat).toBe('number');
    expect(typeof payload.nbf).toBe('number');
    expect(typeof payload.exp).toBe('number');
  });

  it('is answered as `api` when it addressed `api`, whatever the scheme', async () => {
    const { response } = await forge({ ...base, scheme: 'IOV-JWT', claims: { aud: 'api' } });
    expect(response.status).toBe(200);
    const token = response.headers.get('x-api-jwt') as string;
    const { payload } = await jwtVerify(token, apiKey.publicKey);
    expect(payload.iss).toBe('api');
  });

  it('may leave out sub when it acts for the issuer itself', async () => {
    const { response } = await forge({ ...base, claims: { sub: undefined } });
    expect(response.status).toBe(200);
  });

  it('may use the API-JWT scheme in any letter case', async () => {
    const { response } = await forge({ ...base, scheme: 'api-jwt', claims: { aud: 'api' } });
    expect(response.status).toBe(200);
  });
});

describe('refused with 401 (docs/protocol.md#refusals)', () => {
  it('has a plain JSON body and a JWT addressed to the claimed issuer, jti and status', async () => {
    const { response, prepared } = await forge({ ...base, claims: { aud: 'someone-else' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(await response.clone().text());
    expect(body).toEqual({ error_code: 'AUTH-004', error_detail: expect.any(String) });
    const { payload } = await jwtVerify(response.headers.get('x-iov-jwt') as string, apiKey.publicKey);
    expect(payload).toMatchObject({
      iss: 'lka',
      aud: service.issuer,
      jti: prepared.jti,
      response: { status: 401, func: 'S256' },
    });
  });

  it.each([
    ['no Authorization header', { authorization: null }, 'AUTH-001'],
    ['a scheme without a token', { authorization: 'IOV-JWT' }, 'AUTH-001'],
    ['extra words after the token', { authorization: 'IOV-JWT a.b.c d' }, 'AUTH-001'],
    ['an unknown scheme', { scheme: 'Bearer' }, 'AUTH-001'],
    ['a token that is not a JWT', { authorization: 'IOV-JWT not-a-jwt' }, 'AUTH-001'],
  ])('%s', async (_, spec, code) => {
    const { response } = await forge({ ...base, ...spec });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: code });
    // Even a refusal that names no caller is signed, so a Java SDK can still validate it.
    const { payload } = await jwtVerify(response.headers.get('x-iov-jwt') as string, apiKey.publicKey);
    expect(payload.response).toMatchObject({ status: 401 });
  });

  it.each([
    ['an unknown kid', { header: { kid: '00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff' } }, 'AUTH-002'],
    ['alg none', { header: { alg: 'none' } }, 'AUTH-003'],
    ['a wrong audience', { claims: { aud: 'svc' } }, 'AUTH-004'],
    ['an expired token', { claims: { iat: nowS() - 100, nbf: nowS() - 100, exp: nowS() - 40 } }, 'AUTH-004'],
    ['nbf in the future beyond the leeway', { claims: { nbf: nowS() + 45, exp: nowS() + 50 } }, 'AUTH-004'],
    ['iat in the future beyond the leeway', { claims: { iat: nowS() + 45, exp: nowS() + 50 } }, 'AUTH-004'],
    ['a lifetime that is too long', { claims: { exp: nowS() + 3600 } }, 'AUTH-004'],
    ['a sub that is no entity', { claims: { sub: 'someone' } }, 'AUTH-004'],
    ['another method in the claim', { request: { meth: 'POST' } }, 'AUTH-005'],
    ['another path in the claim', { request: { path: '/organization/v3/directories/list' } }, 'AUTH-005'],
    ['a query that was not sent', { request: { query: 'a=1' } }, 'AUTH-005'],
    ['a hash without a body', { request: { hash: 'ab', func: 'S256' } }, 'AUTH-005'],
  ])('%s → %s', async (_, spec, code) => {
    await expectRefusal(spec, 401, code);
  });

  it.each([
    ['an iss that is no entity', 'lka', 'AUTH-001'],
    ['an issuer that does not exist', `org:${randomUUID()}`, 'AUTH-002'],
  ])('%s, answered to that claimed issuer', async (_, iss, code) => {
    const { response, prepared } = await forge({ ...base, claims: { iss, sub: undefined } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: code });
    const { payload } = await jwtVerify(response.headers.get('x-iov-jwt') as string, apiKey.publicKey);
    expect(payload).toMatchObject({ aud: iss, sub: iss, jti: prepared.jti, response: { status: 401 } });
  });

  it('HS256 signed with anything', async () => {
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({
      iss: service.issuer,
      aud: 'lka',
      jti: randomUUID(),
      iat: nowS(),
      exp: nowS() + 5,
    })
      .setProtectedHeader({ alg: 'HS256', kid: base.kid })
      .sign(new TextEncoder().encode('a shared secret of thirty-two by'));
    const response = await fetch(`${service.baseUrl}/organization/v3/directories`, {
      headers: { authorization: `IOV-JWT ${token}` },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: 'AUTH-003' });
  });

  it('a signature by another key under the right kid', async () => {
    await expectRefusal({ privateKey: rsaKeyPair().privateKey }, 401, 'AUTH-003');
  });

  it.each([
    ['a body without hash', { request: { hash: undefined, func: undefined } }],
    ['a hash of other bytes', { request: { hash: '0'.repeat(64) } }],
    ['an unknown func', { request: { func: 'S1' } }],
  ])('%s → AUTH-005', async (_, spec) => {
    await expectRefusal(
      { method: 'POST', path: '/organization/v3/directories/list', body: await listBody(), ...spec },
      401,
      'AUTH-005',
    );
  });

  it('a replayed jti: the first use passes, the second is refused', async () => {
    const first = await forge(base);
    expect(first.response.status).toBe(200);
    const replay = await fetch(`${service.baseUrl}/organization/v3/directories`, {
      headers: { authorization: `IOV-JWT ${first.token}` },
    });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error_code: 'AUTH-006' });
  });

  // The jti is recorded while the use case reads: what keeps a replay from writing is that its writes wait for it.
  it('a replayed write is refused and changes nothing', async () => {
    const created = await client.call<{ id: string }>('POST', '/organization/v3/directories', {
      body: { name: `Replayed ${randomUUID()}` },
    });
    const id = created.body?.id;
    const body = await encryptJson({ directory_id: id, active: false }, apiKey);
    const patch = { method: 'PATCH', path: '/organization/v3/directories', body };
    const first = await forge({ ...base, ...patch });
    expect(first.response.status).toBe(204);
    await client.call('PATCH', '/organization/v3/directories', { body: { directory_id: id, active: true } });

    const replay = await send(`${service.baseUrl}${patch.path}`, patch.method, first.prepared.headers, body);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error_code: 'AUTH-006' });
    const listed = await client.call<{ active: boolean }[]>('POST', '/organization/v3/directories/list', {
      body: { directory_ids: [id] },
    });
    expect(listed.body?.[0]?.active).toBe(true);
  });

  it.each([
    ['inactive', { active: false }],
    ['expired', { expires: '2020-01-01T00:00:00Z' }],
    ['encryption-only', { keyType: 1 }],
  ])('a key that is %s → AUTH-002', async (_, key) => {
    const { issuer, pairs } = await organizationWithKeys({}, key);
    const signer = pairs[1] as ReturnType<typeof rsaKeyPair>;
    const { response } = await forge({ ...base, issuer, kid: signer.kid, privateKey: signer.privateKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: 'AUTH-002' });
  });

  it('an issuer with no key to encrypt the answer to → AUTH-007', async () => {
    const { issuer, pairs } = await organizationWithKeys({ keyType: 2 });
    const signer = pairs[0] as ReturnType<typeof rsaKeyPair>;
    const { response } = await forge({ ...base, issuer, kid: signer.kid, privateKey: signer.privateKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: 'AUTH-007' });
  });
});

describe('keys by type', () => {
  it('a signature-only key signs and the answer is encrypted to the encryption-only key', async () => {
    const { issuer, pairs } = await organizationWithKeys({ keyType: 2 }, { keyType: 1 });
    const [signer, encryption] = pairs as [ReturnType<typeof rsaKeyPair>, ReturnType<typeof rsaKeyPair>];
    const { response } = await forge({
      ...base,
      issuer,
      kid: signer.kid,
      privateKey: signer.privateKey,
      method: 'POST',
      path: '/organization/v3/directories/list',
      body: await listBody(),
    });
    expect(response.status).toBe(200);
    expect(decodeProtectedHeader(await response.text()).kid).toBe(encryption.kid);
  });
});

describe('refused with 403', () => {
  it.each([
    ['another organization', () => `org:${randomUUID()}`],
    ['an unknown directory', () => `dir:${randomUUID()}`],
    ['an unknown service', () => `svc:${randomUUID()}`],
  ])('a subject that is %s', async (_, subject) => {
    await expectRefusal({ claims: { sub: subject() } }, 403, 'HTTP-403');
  });
});

describe('refused with 400 ARG-001', () => {
  const post = { method: 'POST', path: '/organization/v3/directories/list' };

  it('a body that is not a JWE', async () => {
    await expectRefusal(
      { ...post, body: '{"directory_ids":[]}', contentType: 'application/json' },
      400,
      'ARG-001',
      /compact JWE/,
    );
  });

  it('a JWE for an API kid the service does not hold', async () => {
    const stranger = rsaKeyPair();
    const body = await encryptJson(
      { directory_ids: [] },
      { kid: stranger.kid, publicKey: stranger.publicKey },
    );
    await expectRefusal({ ...post, body }, 400, 'ARG-001', /API key this service does not hold/);
  });

  it('tampered ciphertext', async () => {
    const parts = (await listBody()).split('.');
    parts[3] = Buffer.from('tampered ciphertext!').toString('base64url');
    await expectRefusal({ ...post, body: parts.join('.') }, 400, 'ARG-001', /does not decrypt/);
  });

  it.each([
    ['a missing field', {}, /directory_ids/],
    ['a field of the wrong type', { directory_ids: 'all' }, /directory_ids: Invalid type: Expected Array/],
    ['an element that is no UUID', { directory_ids: ['x'] }, /directory_ids\.0: must be a UUID/],
    ['an unknown field', { directory_ids: [], extra: 1 }, /extra/],
    ['a body that is not an object', [1, 2], /body: the request body must be a JSON object/],
  ])('JSON that fails the schema: %s, naming the field', async (_, value, detail) => {
    await expectRefusal({ ...post, body: await listBody(value) }, 400, 'ARG-001', detail);
  });

  it('a missing body where one is needed', async () => {
    await expectRefusal(post, 400, 'ARG-001', /needs a request body/);
  });

  it('a body where none is taken', async () => {
    await expectRefusal({ body: await listBody() }, 400, 'ARG-001', /takes no request body/);
  });
});

describe('unknown routes under the signed prefixes', () => {
  it.each([
    ['GET', '/organization/v3/nothing-here'],
    ['DELETE', '/organization/v3/directories'],
    ['GET', '/directory/v3/not-a-thing'],
    ['POST', '/service/v3/whatever'],
  ])('%s %s → signed 400 ARG-002', async (method, path) => {
    await expectRefusal({ method, path }, 400, 'ARG-002');
  });

  it('are still authenticated first', async () => {
    const { response } = await forge({
      ...base,
      path: '/organization/v3/nothing-here',
      claims: { aud: 'x' },
    });
    expect(response.status).toBe(401);
  });
});

describe('POST /organization/v3/directories/list', () => {
  it('refuses any directory the organization does not own with 403', async () => {
    await expectRefusal(
      {
        method: 'POST',
        path: '/organization/v3/directories/list',
        body: await listBody({ directory_ids: [randomUUID()] }),
      },
      403,
      'HTTP-403',
    );
  });
});

function nowS(): number {
  return Math.floor(Date.now() / 1000);
}
