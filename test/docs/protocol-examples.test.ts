import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { MiddlewareObj, Request } from '@middy/core';
import { decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { apiKeyRing, refreshedApiKeyRing } from '#shared/api-keys/current-key-ring';
import type { DirectoryView } from '#shared/domain/directory';
import type { EntityKey } from '#shared/domain/entity-key';
import type { HttpEvent } from '#shared/http/event';
import { authenticate } from '#shared/http/middlewares/authenticate';
import { decryptBody } from '#shared/http/middlewares/decrypt-body';
import { listDirectoriesByIdsBody } from '#shared/http/schemas/directories';
import type { SignedContext } from '#shared/http/signed-state';
import { contentHash } from '#shared/protocol/content-hash';
import { decryptJson, encryptJson } from '#shared/protocol/jwe';
import { keyId } from '#shared/protocol/kid';
import { signRequestJwt } from '#shared/protocol/request-jwt';
import { signResponseJwt, verifyResponseJwt } from '#shared/protocol/response-jwt';
import { listEntityKeysAndHead } from '#shared/store/entity-keys';
import { recordJti } from '#shared/store/jti';

/**
 * The worked examples of docs/protocol.md (#worked-example and the blocks it points to) are generated here, from fixed
 * keys, ids, jtis and a fixed clock, with the project's own signing code. Each sits in the document between
 * `<!-- example:<name> -->` and `<!-- /example -->`; this test fails when a block differs from what the code makes
 * now, and proves that the bytes shown are accepted: the request JWTs pass the signed pipeline's authentication (its
 * store calls answered in memory), the request body decrypts and validates, and the response verifies and decrypts
 * as a client checks it.
 *
 * After a deliberate change, rewrite the blocks (and make any missing JWE fixture) with
 *
 *     UPDATE_EXAMPLES=1 npx vitest run test/docs/protocol-examples.test.ts
 *
 * RSASSA-PKCS1-v1_5 signatures are deterministic, so the JWTs come out byte for byte the same on every run. RSA-OAEP
 * is not: the two JWE bodies were made once and are kept in test/fixtures/protocol-example-*.jwe, and are checked to
 * decrypt to exactly the JSON the document shows. The keys are throwaway 2048-bit keys made for this document only.
 */

vi.mock('#shared/store/entity-keys', () => ({ listEntityKeysAndHead: vi.fn() }));
vi.mock('#shared/store/jti', () => ({ recordJti: vi.fn() }));
vi.mock('#shared/api-keys/current-key-ring', () => ({ apiKeyRing: vi.fn(), refreshedApiKeyRing: vi.fn() }));

const updating = process.env.UPDATE_EXAMPLES === '1';
const docUrl = new URL('../../docs/protocol.md', import.meta.url);
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);

/** 2026-01-01T00:00:00Z. */
const now = 1_767_225_600;
const organizationId = '6b1f3c9e-2d4a-4f8b-9c7e-1a2b3c4d5e6f';
const directoryId = 'c0ffee00-1234-4abc-8def-0123456789ab';
const sdkKey = '0d7c6b5a-4e3f-4a21-9b8c-7d6e5f4a3b2c';
const getJti = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const postJti = '9b2d5f7e-6c1a-4e8b-a3d4-5f6e7a8b9c0d';
const organization = `org:${organizationId}`;

interface ExampleKey {
  readonly file: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicPem: string;
  readonly kid: string;
}

function exampleKey(file: string): ExampleKey {
  const privateKey = createPrivateKey(readFileSync(fixture(file), 'utf8'));
  const publicKey = createPublicKey(privateKey);
  return {
    file: `test/fixtures/${file}`,
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: keyId(publicKey),
  };
}

const orgKey = exampleKey('protocol-example-organization.key.pem');
const apiKey = exampleKey('protocol-example-api.key.pem');

const requestBody = { directory_ids: [directoryId] };
const responseBody: DirectoryView[] = [
  {
    id: directoryId,
    name: 'Example directory',
    active: true,
    premium: false,
    service_ids: [],
    sdk_keys: [sdkKey],
    android_key: null,
    ios_certificate_fingerprint: null,
    denial_context_inquiry_enabled: true,
    webhook_url: null,
  },
];

/**
 * A JWE kept as a fixture: it must decrypt with `recipient`'s key to exactly `value`. When it does not (or is missing),
 * UPDATE_EXAMPLES makes a new one; otherwise the test fails saying how to make it.
 */
async function fixedJwe(file: string, value: unknown, recipient: ExampleKey): Promise<string> {
  const path = fixture(file);
  if (existsSync(path)) {
    const jwe = readFileSync(path, 'utf8').trim();
    const opened = await decryptJson(jwe, (kid) => (kid === recipient.kid ? recipient.privateKey : undefined))
      .then(({ value: plaintext }) => JSON.stringify(plaintext))
      .catch(() => undefined);
    if (opened === JSON.stringify(value)) return jwe;
  }
  if (!updating) {
    throw new Error(
      `test/fixtures/${file} is missing or does not decrypt to the example's JSON; run UPDATE_EXAMPLES=1`,
    );
  }
  const jwe = await encryptJson(value, { kid: recipient.kid, publicKey: recipient.publicKey });
  writeFileSync(path, `${jwe}\n`);
  return jwe;
}

const segmentJson = (token: string, index: number) =>
  Buffer.from(token.split('.')[index] ?? '', 'base64url').toString('utf8');

function hexLines(bytes: Buffer, perLine: number): string[] {
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += perLine) {
    lines.push(
      `  ${[...bytes.subarray(at, at + perLine)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ')}`,
    );
  }
  return lines;
}

const fence = (lines: readonly string[]) => ['```text', ...lines, '```'].join('\n');
const pemLines = (pem: string) => pem.trim().split('\n');

function jwtLines(token: string): string[] {
  return [
    'JWT header (the exact bytes of the first segment):',
    segmentJson(token, 0),
    '',
    'JWT claims (the exact bytes of the second segment):',
    segmentJson(token, 1),
  ];
}

interface Generated {
  readonly blocks: ReadonlyMap<string, string>;
  readonly getJwt: string;
  readonly postJwt: string;
  readonly requestJwe: string;
  readonly responseJwe: string;
  readonly responseJwt: string;
}

async function generate(): Promise<Generated> {
  const blocks = new Map<string, string>();

  const der = orgKey.publicKey.export({ type: 'spki', format: 'der' });
  const md5 = createHash('md5').update(der).digest('hex');
  blocks.set(
    'kid',
    fence([
      `The public half of ${orgKey.file}, SPKI PEM:`,
      ...pemLines(orgKey.publicPem),
      '',
      `1. The DER SubjectPublicKeyInfo inside the PEM (base64-decoded), ${der.length} bytes:`,
      ...hexLines(der, 24),
      '2. Its MD5 digest, hex:',
      `  ${md5}`,
      '3. The kid: the digest as lowercase hex pairs joined by colons:',
      `  ${orgKey.kid}`,
    ]),
  );

  blocks.set(
    'api-public-key',
    fence([
      'GET /public/v3/public-key HTTP/1.1',
      '',
      'HTTP/1.1 200 OK',
      'Content-Type: text/plain; charset=utf-8',
      `X-API-Key-Id: ${apiKey.kid}`,
      `X-IOV-Key-Id: ${apiKey.kid}`,
      '',
      ...pemLines(apiKey.publicPem),
    ]),
  );

  const signingKey = { kid: orgKey.kid, privateKey: orgKey.privateKey };
  const getPath = '/organization/v3/directories';
  const getJwt = await signRequestJwt({
    signingKey,
    algorithm: 'RS256',
    issuer: organization,
    subject: organization,
    audience: 'lka',
    jti: getJti,
    now,
    binding: { method: 'GET', path: getPath },
  });
  blocks.set(
    'request-get',
    fence([
      ...jwtLines(getJwt),
      '',
      'The request:',
      `GET ${getPath} HTTP/1.1`,
      `Authorization: IOV-JWT ${getJwt}`,
    ]),
  );

  const requestJwe = await fixedJwe('protocol-example-request-body.jwe', requestBody, apiKey);
  const postPath = '/organization/v3/directories/list';
  const postJwt = await signRequestJwt({
    signingKey,
    algorithm: 'RS512',
    issuer: organization,
    subject: organization,
    audience: 'lka',
    jti: postJti,
    now,
    binding: { method: 'POST', path: postPath, body: requestJwe },
    hashFunction: 'S256',
  });
  blocks.set(
    'request-post',
    fence([
      'The body, before encryption:',
      JSON.stringify(requestBody),
      '',
      'The body as sent: a compact JWE to the API key. Its protected header:',
      JSON.stringify(decodeProtectedHeader(requestJwe)),
      '',
      'request.hash: SHA-256 of the body bytes as sent (the JWE text), lowercase hex:',
      contentHash('S256', requestJwe),
      '',
      ...jwtLines(postJwt),
      '',
      'The request:',
      `POST ${postPath} HTTP/1.1`,
      'Content-Type: application/jose',
      `Authorization: IOV-JWT ${postJwt}`,
      '',
      requestJwe,
    ]),
  );

  const responseJwe = await fixedJwe('protocol-example-response-body.jwe', responseBody, orgKey);
  const responseJwt = await signResponseJwt({
    signingKey: { kid: apiKey.kid, privateKey: apiKey.privateKey },
    issuer: 'lka',
    audience: organization,
    subject: organization,
    jti: postJti,
    now,
    binding: { status: 200, body: responseJwe },
  });
  blocks.set(
    'response',
    fence([
      'HTTP/1.1 200 OK',
      'Content-Type: application/jose',
      `X-IOV-JWT: ${responseJwt}`,
      `X-API-JWT: ${responseJwt}`,
      '',
      responseJwe,
      '',
      ...jwtLines(responseJwt),
      '',
      'The body: a compact JWE to the organization key. Its protected header:',
      JSON.stringify(decodeProtectedHeader(responseJwe)),
      '',
      'The body, decrypted with the organization key:',
      JSON.stringify(responseBody),
    ]),
  );

  return { blocks, getJwt, postJwt, requestJwe, responseJwe, responseJwt };
}

const marker = /<!-- example:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/example -->/g;

function documentBlocks(text: string): Map<string, string> {
  return new Map([...text.matchAll(marker)].map((match) => [match[1] ?? '', (match[2] ?? '').trim()]));
}

function rewrite(text: string, blocks: ReadonlyMap<string, string>): string {
  return text.replace(marker, (whole, name: string) =>
    blocks.has(name) ? `<!-- example:${name} -->\n\n${blocks.get(name)}\n\n<!-- /example -->` : whole,
  );
}

type PipelineRequest = Request<HttpEvent, unknown, Error, SignedContext>;

/** What API Gateway hands a function for a request, and the pipeline's state as the response signer starts it. */
function pipelineRequest(
  method: string,
  path: string,
  authorization: string,
  body?: string,
): PipelineRequest {
  const event = {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/jose' }) },
    requestContext: { http: { method, path } },
    isBase64Encoded: false,
    ...(body === undefined ? {} : { body }),
  } as unknown as HttpEvent;
  return {
    event,
    context: { signed: { receivedAt: now * 1000 } } as SignedContext,
    response: undefined,
    error: undefined,
    internal: {},
  } as unknown as PipelineRequest;
}

async function runBefore(
  middleware: MiddlewareObj<HttpEvent, unknown, Error, SignedContext>,
  request: PipelineRequest,
) {
  await (middleware.before as (request: PipelineRequest) => Promise<void>)(request);
}

const organizationKeyRecord: EntityKey = {
  kid: orgKey.kid,
  publicKeyPem: orgKey.publicPem,
  keyType: 0,
  active: true,
  created: '2025-12-01T00:00:00Z',
  expires: null,
};

describe('the worked examples of docs/protocol.md', () => {
  beforeEach(() => {
    vi.mocked(listEntityKeysAndHead).mockResolvedValue({ keys: [organizationKeyRecord], head: undefined });
    vi.mocked(recordJti).mockResolvedValue(true);
    const ring = { decryptionKey: (kid?: string) => (kid === apiKey.kid ? apiKey.privateKey : undefined) };
    vi.mocked(apiKeyRing).mockResolvedValue(ring as unknown as Awaited<ReturnType<typeof apiKeyRing>>);
    vi.mocked(refreshedApiKeyRing).mockResolvedValue(
      ring as unknown as Awaited<ReturnType<typeof refreshedApiKeyRing>>,
    );
  });

  it('are in the document exactly as the code generates them', async () => {
    const { blocks } = await generate();
    const text = readFileSync(docUrl, 'utf8');
    const found = documentBlocks(text);
    expect([...found.keys()].sort(), 'example markers in docs/protocol.md').toEqual(
      [...blocks.keys()].sort(),
    );
    if (updating) {
      writeFileSync(docUrl, rewrite(text, blocks));
      return;
    }
    for (const [name, block] of blocks) {
      expect(found.get(name), `example:${name} (UPDATE_EXAMPLES=1 rewrites it)`).toBe(block);
    }
  });

  it('the GET request is accepted by the signed pipeline', async () => {
    const { getJwt } = await generate();
    const request = pipelineRequest('GET', '/organization/v3/directories', `IOV-JWT ${getJwt}`);
    await runBefore(authenticate(), request);
    const caller = request.context.signed.caller;
    expect(caller?.issuer).toEqual({ type: 'org', id: organizationId });
    expect(caller?.subject).toEqual({ type: 'org', id: organizationId });
    expect(caller?.identity).toBe('lka');
    expect(caller?.responseKey?.kid).toBe(orgKey.kid);
    expect(recordJti).toHaveBeenCalledWith({ type: 'org', id: organizationId }, getJti, now + 5 + 30, now);
  });

  it('the POST request is accepted, and its body decrypts and validates', async () => {
    const { postJwt, requestJwe } = await generate();
    const request = pipelineRequest(
      'POST',
      '/organization/v3/directories/list',
      `IOV-JWT ${postJwt}`,
      requestJwe,
    );
    await runBefore(authenticate(), request);
    await runBefore(decryptBody(listDirectoriesByIdsBody), request);
    expect(request.context.signed.caller?.jti).toBe(postJti);
    expect(request.context.signed.body).toEqual(requestBody);
  });

  it('a request JWT whose bytes differ from the example is refused', async () => {
    const { postJwt, requestJwe } = await generate();
    const tampered = `${requestJwe.slice(0, -1)}${requestJwe.endsWith('A') ? 'B' : 'A'}`;
    const request = pipelineRequest(
      'POST',
      '/organization/v3/directories/list',
      `IOV-JWT ${postJwt}`,
      tampered,
    );
    await expect(runBefore(authenticate(), request)).rejects.toMatchObject({ code: 'AUTH-005' });
  });

  it('the response verifies as a client verifies it, and its body decrypts', async () => {
    const { responseJwt, responseJwe } = await generate();
    const claims = await verifyResponseJwt(responseJwt, {
      binding: { status: 200, body: responseJwe },
      issuer: 'lka',
      audience: organization,
      subject: organization,
      jti: postJti,
      resolveKey: async ({ kid }) => {
        expect(kid).toBe(apiKey.kid);
        return apiKey.publicKey;
      },
      now,
      leeway: 30,
      maxLifetime: 300,
    });
    expect(claims.response).toEqual({ status: 200, hash: contentHash('S256', responseJwe), func: 'S256' });
    const { value } = await decryptJson(responseJwe, (kid) =>
      kid === orgKey.kid ? orgKey.privateKey : undefined,
    );
    expect(value).toEqual(responseBody);
  });

  it('every example JWT is RSASSA-PKCS1-v1_5 over base64url(header).base64url(claims), as node:crypto alone makes it', async () => {
    const { getJwt, postJwt, responseJwt } = await generate();
    const cases = [
      { token: getJwt, hash: 'sha256', key: orgKey },
      { token: postJwt, hash: 'sha512', key: orgKey },
      { token: responseJwt, hash: 'sha512', key: apiKey },
    ];
    for (const { token, hash, key } of cases) {
      const [header = '', claims = ''] = token.split('.');
      const rebuilt = [
        Buffer.from(segmentJson(token, 0)).toString('base64url'),
        Buffer.from(segmentJson(token, 1)).toString('base64url'),
      ];
      expect(rebuilt).toEqual([header, claims]);
      const signature = sign(hash, Buffer.from(`${header}.${claims}`), key.privateKey).toString('base64url');
      expect(`${header}.${claims}.${signature}`).toBe(token);
    }
  });
});
