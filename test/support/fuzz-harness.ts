import { createPrivateKey, type KeyObject, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CompactEncrypt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { lambdaContext } from '#infra/local/lambda-context';
import { keyFilesBeside } from '#shared/api-keys/key-ring-storage';
import { maxDetailLength } from '#shared/echo';
import { errorStatus } from '#shared/errors';
import type { HttpEvent } from '#shared/http/event';
import { contentHash } from '#shared/protocol/content-hash';
import { decryptJson } from '#shared/protocol/jwe';
import { checkBodyHash, isObject, type KeyMaterial } from '#shared/protocol/jws';
import { keyId } from '#shared/protocol/kid';
import { projectRoot } from '#test/support/service-process';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/** A request as a hostile client may send it: any method, path, headers and body bytes. */
export interface RawRequest {
  readonly method: string;
  /** The request target exactly as sent: path and optional `?query`. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export interface Answer {
  readonly status: number;
  /** Lowercase names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** What `check` learned from an answer that kept every invariant. */
export interface CheckedAnswer extends Answer {
  /** The error body's code, decrypted when it was encrypted. */
  readonly code?: string;
  readonly detail?: unknown;
  /** The decrypted (or plain) JSON body, if any. */
  readonly json?: unknown;
}

/** Whoever signs a request: an entity and one of its keys. */
export interface Signer {
  readonly issuer: string;
  readonly kid: string;
  readonly privateKey: KeyObject;
}

export interface SignSpec {
  readonly method: string;
  readonly target: string;
  readonly signer?: Signer;
  /** Defaults to the signer's own entity. */
  readonly subject?: string;
  /** JSON text of the body, encrypted to the API's current key as a client would (no JSON.stringify round trip). */
  readonly json?: string;
  /** The body bytes exactly as sent (a hand-made or mutated JWE, or garbage). */
  readonly rawBody?: string | Buffer;
  readonly jweHeader?: Record<string, unknown>;
  /** Merged over the valid claims; `undefined` removes one. */
  readonly claims?: Record<string, unknown>;
  /** Merged over the valid `request` claim. */
  readonly request?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
  readonly scheme?: string;
  readonly headers?: Record<string, string>;
}

export interface FuzzTarget {
  readonly runtime: TestRuntime;
  readonly apiKey: { readonly kid: string; readonly publicKey: KeyMaterial };
  /** The demo organization, which owns everything the suites build. */
  readonly organization: Signer;
  /** Private keys answers may be encrypted to; suites add the keys of entities they create. */
  readonly decryptionKeys: Map<string, KeyObject>;
  /** Runs the request through the route table's handlers in this process, as API Gateway would hand it over. */
  invoke(request: RawRequest): Promise<Answer>;
  /** Sends the request to the local runtime over HTTP, its target exactly as given. */
  send(request: RawRequest): Promise<Answer>;
  /** A signed request, valid unless the spec overrides something. */
  sign(spec: SignSpec): Promise<RawRequest>;
  /** Encrypts JSON text to the API's current key the way the SDKs do. */
  encrypt(json: string, header?: Record<string, unknown>): Promise<string>;
  /** Throws unless the answer keeps every invariant (see `checkAnswer`). */
  check(request: RawRequest, answer: Answer): Promise<CheckedAnswer>;
  stop(): Promise<void>;
}

const signedPrefixes = ['/organization/', '/directory/', '/service/', '/device/'];

/**
 * Starts the local runtime and loads the route table in this process too, so that a suite can run most requests
 * in-process (fast, no sockets) and the few HTTP-level ones over the wire against the same store.
 */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const runtime = await startTestRuntime();
  const { loadRoutes, matchRoute } = await import('#infra/local/http-server');
  const { routes, fallback } = await loadRoutes();
  const apiKey = await runtime.client().currentApiKey();
  const organizationKey = createPrivateKey(runtime.organizationKeyPem);
  const organization: Signer = {
    issuer: runtime.issuer,
    kid: keyId(organizationKey),
    privateKey: organizationKey,
  };
  const decryptionKeys = new Map<string, KeyObject>([[organization.kid, organizationKey]]);
  const secrets = await secretsOf(runtime);

  const invoke = async (request: RawRequest): Promise<Answer> => {
    const { rawPath, rawQueryString } = splitTarget(request.target);
    const method = request.method.toUpperCase();
    const matched = matchRoute(routes, method, rawPath);
    const handler = matched?.loaded.handler ?? fallback;
    const event = toEvent(request, method, rawPath, rawQueryString, matched?.parameters);
    const result = await handler(event, lambdaContext('fuzz', 10_000));
    return fromResult(result);
  };

  return {
    runtime,
    apiKey,
    organization,
    decryptionKeys,
    invoke,
    send: (request) => sendRaw(runtime.baseUrl, request),
    encrypt: (json, header) => encryptText(json, apiKey, header),
    sign: async (spec) => {
      const signer = spec.signer ?? organization;
      let body = spec.rawBody;
      if (body === undefined && spec.json !== undefined)
        body = await encryptText(spec.json, apiKey, spec.jweHeader);
      const token = await signToken(spec, signer, body);
      const headers: Record<string, string> = {
        authorization: `${spec.scheme ?? 'IOV-JWT'} ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/jose' }),
        ...spec.headers,
      };
      return { method: spec.method, target: spec.target, headers, ...(body === undefined ? {} : { body }) };
    },
    check: (request, answer) => checkAnswer(request, answer, { apiKey, decryptionKeys, secrets }),
    stop: () => runtime.stop(),
  };
}

/** The request JWT of a spec: valid claims for the request, with the spec's overrides applied. */
async function signToken(spec: SignSpec, signer: Signer, body: string | Buffer | undefined): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { rawPath, rawQueryString } = splitTarget(spec.target);
  const request = withoutUndefined({
    meth: spec.method.toUpperCase(),
    path: rawPath,
    ...(rawQueryString ? { query: rawQueryString } : {}),
    ...(body !== undefined && body.length > 0 ? { hash: contentHash('S256', body), func: 'S256' } : {}),
    ...spec.request,
  });
  const claims = withoutUndefined({
    iss: signer.issuer,
    sub: spec.subject ?? signer.issuer,
    aud: 'lka',
    jti: randomUUID(),
    iat: now,
    nbf: now,
    exp: now + 5,
    request,
    ...spec.claims,
  });
  const header = { alg: 'RS256', kid: signer.kid, ...spec.header };
  if (header.alg === 'none') return `${segment(header)}.${segment(claims)}.`;
  return new SignJWT(claims).setProtectedHeader(header).sign(signer.privateKey);
}

async function encryptText(
  json: string,
  apiKey: { kid: string; publicKey: KeyMaterial },
  header: Record<string, unknown> = {},
): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(json))
    .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: apiKey.kid, ...header })
    .encrypt(apiKey.publicKey);
}

/** What no answer may ever show: the hash key, the API's private keys, and the organization's private key. */
async function secretsOf(runtime: TestRuntime): Promise<string[]> {
  const ring = JSON.parse(await readFile(runtime.runtime.apiKeysFile, 'utf8')) as {
    keys: { privateKey: string }[];
  };
  const { hashKey } = JSON.parse(
    await readFile(keyFilesBeside(runtime.runtime.apiKeysFile).hashKey, 'utf8'),
  ) as { hashKey: string };
  const pemLines = (pem: string) =>
    pem
      .split('\n')
      .filter((line) => line.length >= 40 && !line.startsWith('-----'))
      .slice(0, 3);
  return [
    hashKey,
    ...ring.keys.flatMap((key) => pemLines(key.privateKey)),
    ...pemLines(runtime.organizationKeyPem),
  ];
}

/**
 * Sends the request target exactly as given: a URL string would be normalised on the way (WHATWG URL parsing
 * resolves `..`), which is what a hostile client does not do.
 */
function sendRaw(baseUrl: string, request: RawRequest): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers =
    body === undefined ? request.headers : { ...request.headers, 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { hostname, port, method: request.method, path: request.target, headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const answerHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: answerHeaders, body: Buffer.concat(chunks) });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function splitTarget(target: string): { rawPath: string; rawQueryString: string } {
  const queryAt = target.indexOf('?');
  return queryAt === -1
    ? { rawPath: target, rawQueryString: '' }
    : { rawPath: target.slice(0, queryAt), rawQueryString: target.slice(queryAt + 1) };
}

function toEvent(
  request: RawRequest,
  method: string,
  rawPath: string,
  rawQueryString: string,
  pathParameters: Record<string, string> | undefined,
): HttpEvent {
  const headers: Record<string, string> = { host: 'fuzz.localhost', 'x-forwarded-proto': 'https' };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    queryStringParameters[name] =
      queryStringParameters[name] === undefined ? value : `${queryStringParameters[name]},${value}`;
  }
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    ...(rawQueryString ? { queryStringParameters } : {}),
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'fuzz',
      domainName: 'fuzz.localhost',
      domainPrefix: 'fuzz',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'fuzz' },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    // API Gateway base64-encodes every body that is not text (application/jose included).
    ...(body && body.length > 0
      ? { body: body.toString('base64'), isBase64Encoded: true }
      : { isBase64Encoded: false }),
  };
}

function fromResult(result: APIGatewayProxyStructuredResultV2): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  const body = result.body
    ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  return { status: result.statusCode ?? 200, headers, body };
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined));
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Whether the request went to the signed pipeline (every route under the signed prefixes but the device's link). */
export function isSignedRequest(request: Pick<RawRequest, 'method' | 'target'>): boolean {
  const { rawPath } = splitTarget(request.target);
  if (request.method.toUpperCase() === 'POST' && rawPath === '/device/v3/link') return false;
  return signedPrefixes.some((prefix) => rawPath.startsWith(prefix));
}

/** Codes an answer may carry: the catalogue, less the generic 500. */
const documentedCodes = new Set(Object.keys(errorStatus).filter((code) => code !== 'HTTP-500'));

/** Traces of an internal failure or of secrets. Hostile inputs are generated so that none of them contains these. */
const leakPatterns: readonly (readonly [string, RegExp])[] = [
  ['a stack frame', /\n\s+at\s|\bat\s[\w$.<>[\]]+\s\(.*:\d+:\d+\)|\bat\s(?:file|node):/],
  ['a source path', /\/work\/|node_modules|node:internal|file:\/\/|\.ts:\d+|\.js:\d+:\d+/],
  ['the project root', new RegExp(projectRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
  ['private key material', /PRIVATE KEY|privateKey|hashKey/],
  [
    'an exception of the runtime',
    /\b(?:TypeError|SyntaxError|RangeError|ReferenceError|URIError|AggregateError)\b|Cannot read propert|is not a function|is not iterable|Maximum call stack|Unexpected (?:token|end of JSON)|\bERR_[A-Z_]{3,}/,
  ],
  [
    'an exception of a library',
    /ValidationException|ConditionalCheckFailed|ResourceNotFound|\$metadata|\$fault|JWSInvalid|JWEInvalid|JWTInvalid|JOSENotSupported|JOSEAlgNotAllowed|JWEDecryptionFailed|Invalid Compact J|decryption operation failed|Middy|middy/,
  ],
];

/** Bounds every answer keeps, whatever the request held: an error repeats at most a short prefix of its input. */
export const answerBounds = {
  /** error_detail, in characters (shared/echo.ts). */
  detail: maxDetailLength,
  /** A whole error body, encrypted or not: the capped detail, JSON-escaped, in a JWE to a 4096-bit key fits. */
  errorBodyBytes: 8 * 1024,
  /** Any one header: the response JWT repeats only the caller's well-formed identifiers. */
  headerBytes: 4 * 1024,
} as const;

/**
 * The invariants of every answer:
 * - no 5xx but a 503 with HTTP-503 (a store outage, which the suites never cause);
 * - under the signed prefixes, one response JWT in both X-IOV-JWT and X-API-JWT, signed by the API, whose
 *   `response` claim binds this status and body; 401 and 5xx bodies plain JSON (docs/protocol.md#refusals), other error
 *   bodies JWEs to the caller;
 * - no stack trace, source path, key material or raw exception text in the body or any header;
 * - every error carries a documented code with its documented status (shared/errors.ts) and a string detail; the
 *   legacy `/v1/` endpoints use their own envelope (docs/protocol.md#legacy-v1);
 * - error bodies, details and headers within `answerBounds`, and no line break in a header value.
 */
export async function checkAnswer(
  request: RawRequest,
  answer: Answer,
  context: {
    apiKey: { kid: string; publicKey: KeyMaterial };
    decryptionKeys: ReadonlyMap<string, KeyObject>;
    secrets: readonly string[];
  },
): Promise<CheckedAnswer> {
  const fail = (problem: string): never => {
    throw new Error(
      `${request.method} ${abbreviate(request.target)} → ${answer.status}: ${problem}\n` +
        `headers: ${abbreviate(JSON.stringify(answer.headers), 600)}\nbody: ${abbreviate(answer.body.toString('utf8'), 600)}`,
    );
  };
  const { status, headers, body } = answer;
  const text = body.toString('utf8');
  const { rawPath } = splitTarget(request.target);
  const signed = isSignedRequest(request);

  const exposed = [
    text,
    ...Object.entries(headers)
      .filter(([name]) => !name.endsWith('-jwt'))
      .flat(),
  ];
  scanForLeaks(exposed, context.secrets, fail);
  for (const [name, value] of Object.entries(headers)) {
    if (Buffer.byteLength(value) > answerBounds.headerBytes)
      fail(`a ${Buffer.byteLength(value)}-byte ${name} header`);
    if (/[\r\n]/.test(value)) fail(`a line break in the ${name} header`);
  }

  if (signed) {
    const token = headers['x-iov-jwt'];
    if (!token) fail('no X-IOV-JWT on an answer to a signed path');
    if (headers['x-api-jwt'] !== token) fail('X-API-JWT is not X-IOV-JWT');
    await checkResponseJwt(token as string, answer, context.apiKey.publicKey).catch((error: unknown) =>
      fail(`the response JWT does not verify: ${String(error)}`),
    );
  }

  let json: unknown;
  if (body.length > 0) {
    const plain = !signed || status === 401 || status >= 500;
    if (plain) {
      try {
        json = JSON.parse(text);
      } catch {
        if (status >= 400) fail('an error body that is not JSON');
      }
      if ((signed || status >= 400) && headers['content-type'] !== 'application/json') {
        fail('a plain error body not marked JSON');
      }
    } else {
      if (headers['content-type'] !== 'application/jose')
        fail('an encrypted body not marked application/jose');
      const decrypted = await decryptJson(text, (kid) =>
        kid ? context.decryptionKeys.get(kid) : undefined,
      ).catch((error: unknown) => fail(`a body the caller cannot decrypt: ${String(error)}`));
      json = decrypted.value;
      scanForLeaks([JSON.stringify(json)], context.secrets, fail);
    }
  }

  if (status >= 500 && status !== 503) fail('a 5xx other than a documented 503');
  if (status < 400) return { ...answer, json };
  if (body.length > answerBounds.errorBodyBytes) fail(`a ${body.length}-byte error body`);
  if (body.length === 0) {
    // 408 on GET /service/v3/auths/{id} has no body (docs/protocol.md#states).
    if (status === 408) return { ...answer };
    return fail('an error without a body');
  }
  if (!isObject(json)) return fail('an error body that is not an object');
  if (rawPath.startsWith('/v1/')) return checkV1Error(json, status, fail, answer);
  const code = json.error_code;
  if (typeof code !== 'string' || !documentedCodes.has(code))
    fail(`an undocumented error code ${String(code)}`);
  if (errorStatus[code as keyof typeof errorStatus] !== status)
    fail(`${String(code)} travels on the wrong status`);
  if (status === 503 && code !== 'HTTP-503') fail('a 503 without HTTP-503');
  const detail = json.error_detail;
  if (typeof detail !== 'string') return fail('an error whose error_detail is not a string');
  if (detail.length > answerBounds.detail) fail(`a ${detail.length}-character error_detail`);
  return { ...answer, code: code as string, detail, json };
}

/** The legacy envelope: `successful` false, the status repeated, a message and a numeric message code. */
function checkV1Error(
  json: Record<string, unknown>,
  status: number,
  fail: (problem: string) => never,
  answer: Answer,
): CheckedAnswer {
  const { successful, status_code: statusCode, message, message_code: messageCode } = json;
  if (successful !== false || statusCode !== status)
    fail('a v1 error without successful false and its status');
  if (typeof message !== 'string' || typeof messageCode !== 'number')
    fail('a v1 error without message and code');
  return { ...answer, code: String(messageCode), detail: message, json };
}

function scanForLeaks(
  texts: readonly string[],
  secrets: readonly string[],
  fail: (problem: string) => never,
): void {
  for (const text of texts) {
    for (const [what, pattern] of leakPatterns) {
      const found = pattern.exec(text);
      if (found) fail(`${what} (${JSON.stringify(found[0])})`);
    }
    for (const secret of secrets) if (text.includes(secret)) fail('a secret of the API key ring');
  }
}

async function checkResponseJwt(token: string, answer: Answer, apiPublicKey: KeyMaterial): Promise<void> {
  const header = decodeProtectedHeader(token);
  if (typeof header.kid !== 'string') throw new Error('no kid');
  const { payload } = await jwtVerify(token, apiPublicKey, { algorithms: ['RS256', 'RS384', 'RS512'] });
  if (payload.iss !== 'lka' && payload.iss !== 'api') throw new Error(`iss ${String(payload.iss)}`);
  const response = payload.response;
  if (!isObject(response)) throw new Error('no response claim');
  if (response.status !== answer.status) throw new Error(`response.status ${String(response.status)}`);
  if (response.location !== answer.headers.location) throw new Error('Location is not mirrored');
  if (response.cache !== answer.headers['cache-control']) throw new Error('Cache-Control is not mirrored');
  checkBodyHash(response, answer.body);
}

function abbreviate(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
