import type { JWTPayload } from 'jose';
import { clip, echoValue, idEchoLength } from '#shared/echo';
import type { HashFunction } from '#shared/protocol/content-hash';
import {
  bodyHashClaims,
  checkBodyHash,
  isObject,
  type SignJwsOptions,
  signJws,
  type VerifyJwsOptions,
  verifyJws,
} from '#shared/protocol/jws';
import { ProtocolRejection } from '#shared/protocol/rejection';

/** The HTTP message a request JWT is bound to. Signed requests and webhooks are both described this way. */
export interface HttpRequestBinding {
  readonly method: string;
  /** The path exactly as sent, without scheme, host or query. */
  readonly path: string;
  /** The query string without `?`; empty or absent when there is none. */
  readonly query?: string;
  /** The exact body bytes; empty or absent when there is none. */
  readonly body?: Uint8Array | string;
}

export interface RequestClaim {
  readonly meth: string;
  readonly path: string;
  readonly query?: string;
  readonly hash?: string;
  readonly func?: HashFunction;
}

export interface SignRequestJwtOptions extends Omit<SignJwsOptions, 'audience' | 'lifetime'> {
  readonly audience: string;
  readonly binding: HttpRequestBinding;
  readonly hashFunction?: HashFunction;
  /** Seconds from iat to exp; the SDKs use 5. */
  readonly lifetime?: number;
}

export async function signRequestJwt(options: SignRequestJwtOptions): Promise<string> {
  const { binding } = options;
  const request: RequestClaim = {
    meth: binding.method.toUpperCase(),
    path: binding.path,
    ...(binding.query ? { query: binding.query } : {}),
    ...bodyHashClaims(binding.body, options.hashFunction ?? 'S256'),
  };
  return signJws(
    { ...options, jti: options.jti ?? crypto.randomUUID(), lifetime: options.lifetime ?? 5 },
    { request },
  );
}

export interface VerifyRequestJwtOptions extends VerifyJwsOptions {
  readonly binding: HttpRequestBinding;
}

export interface VerifiedRequestJwt {
  readonly claims: JWTPayload & { iss: string; jti: string; iat: number; exp: number };
  readonly request: RequestClaim;
}

/** Verifies a request JWT and that its `request` claim describes exactly this HTTP message. */
export async function verifyRequestJwt(
  token: string,
  options: VerifyRequestJwtOptions,
): Promise<VerifiedRequestJwt> {
  const claims = await verifyJws(token, options);
  const request = claims.request;
  if (!isObject(request)) throw new ProtocolRejection('binding', 'the request claim is missing');
  const { binding } = options;
  if (request.meth !== binding.method.toUpperCase()) {
    throw new ProtocolRejection(
      'binding',
      `request.meth ${echoValue(request.meth)} does not match ${clip(binding.method)}`,
    );
  }
  if (request.path !== binding.path) {
    throw new ProtocolRejection(
      'binding',
      `request.path ${echoValue(request.path, idEchoLength)} does not match ${clip(binding.path, idEchoLength)}`,
    );
  }
  const query = binding.query ?? '';
  if ((request.query ?? '') !== query) {
    throw new ProtocolRejection('binding', 'request.query does not match the query string');
  }
  checkBodyHash(request, binding.body);
  return { claims: claims as VerifiedRequestJwt['claims'], request: request as unknown as RequestClaim };
}
