import { type KeyObject, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { SignJWT } from 'jose';
import type { PreparedRequest } from '#shared/client/api-client';
import { contentHash } from '#shared/protocol/content-hash';

/** One hand-made signed request, valid by default, with any part overridden to test a refusal. */
export interface ForgeSpec {
  readonly baseUrl: string;
  readonly issuer: string;
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly method?: string;
  readonly path?: string;
  /** The raw body text (normally a JWE). */
  readonly body?: string;
  /** Merged over the valid claims; `undefined` values remove a claim. */
  readonly claims?: Record<string, unknown>;
  /** Merged over the valid `request` claim; `undefined` values remove a member. */
  readonly request?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
  readonly scheme?: string;
  /** Replaces the whole Authorization header; null sends none. */
  readonly authorization?: string | null;
  readonly contentType?: string;
}

export interface ForgedExchange {
  readonly response: Response;
  /** What the client needs to verify the answer as if it had sent the request itself. */
  readonly prepared: PreparedRequest;
  readonly token: string;
}

export async function forge(spec: ForgeSpec): Promise<ForgedExchange> {
  const method = spec.method ?? 'GET';
  const path = spec.path ?? '/organization/v3/directories';
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const request = withoutUndefined({
    meth: method,
    path,
    ...(spec.body ? { hash: contentHash('S256', spec.body), func: 'S256' } : {}),
    ...spec.request,
  });
  const claims = withoutUndefined({
    iss: spec.issuer,
    sub: spec.issuer,
    aud: 'lka',
    jti,
    iat: now,
    nbf: now,
    exp: now + 5,
    request,
    ...spec.claims,
  });
  const header = { alg: 'RS512', kid: spec.kid, ...spec.header };
  // jose will not sign `none`; the unsecured form is built by hand.
  const token =
    header.alg === 'none'
      ? `${segment(header)}.${segment(claims)}.`
      : await new SignJWT(claims).setProtectedHeader(header).sign(spec.privateKey);
  const headers: Record<string, string> = {};
  const authorization =
    spec.authorization === undefined ? `${spec.scheme ?? 'IOV-JWT'} ${token}` : spec.authorization;
  if (authorization !== null) headers.authorization = authorization;
  if (spec.body) headers['content-type'] = spec.contentType ?? 'application/jose';
  const response = await send(`${spec.baseUrl}${path}`, method, headers, spec.body);
  return {
    response,
    token,
    prepared: {
      method,
      path,
      headers,
      body: spec.body,
      jti: typeof claims.jti === 'string' ? claims.jti : jti,
      subject: String(claims.sub ?? claims.iss),
    },
  };
}

/** node:http rather than fetch, which refuses some requests a hostile client can still send (a GET with a body). */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const sized =
      body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = httpRequest(url, { method, headers: sized }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const status = incoming.statusCode ?? 0;
        const payload = Buffer.concat(chunks);
        resolve(
          new Response(status === 204 || payload.length === 0 ? null : payload, {
            status,
            headers: responseHeaders,
          }),
        );
      });
      incoming.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined));
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
