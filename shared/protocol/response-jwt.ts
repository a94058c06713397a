import { type JWTPayload, SignJWT } from 'jose';
import type { HashFunction } from '#shared/protocol/content-hash';
import {
  bodyHashClaims,
  checkBodyHash,
  isObject,
  type KeyResolver,
  type SignatureAlgorithm,
  type SigningKey,
  verifyJws,
} from '#shared/protocol/jws';
import { ProtocolRejection } from '#shared/protocol/rejection';

/** The parts of an HTTP response that its JWT vouches for (sdk-compatibility §4.2). */
export interface HttpResponseBinding {
  readonly status: number;
  readonly body?: Uint8Array | string;
  /** The Location header, if the response has one. */
  readonly location?: string;
  /** The Cache-Control header, if the response has one. */
  readonly cache?: string;
}

export interface ResponseClaim {
  readonly status: number;
  readonly hash?: string;
  readonly func?: HashFunction;
  readonly location?: string;
  readonly cache?: string;
}

export interface SignResponseJwtOptions {
  readonly signingKey: SigningKey;
  readonly algorithm?: SignatureAlgorithm;
  /** The API identity the request addressed (`api` or `lka`). */
  readonly issuer: string;
  /** The requester's claimed `iss`; absent only when the request carried none. */
  readonly audience?: string;
  readonly subject?: string;
  /** The request's `jti`, echoed so the caller can pair response and request. */
  readonly jti?: string;
  readonly binding: HttpResponseBinding;
  readonly hashFunction?: HashFunction;
  readonly now: number;
  readonly lifetime?: number;
}

export async function signResponseJwt(options: SignResponseJwtOptions): Promise<string> {
  const { binding, now } = options;
  const response: ResponseClaim = {
    status: binding.status,
    ...bodyHashClaims(binding.body, options.hashFunction ?? 'S256'),
    ...(binding.location === undefined ? {} : { location: binding.location }),
    ...(binding.cache === undefined ? {} : { cache: binding.cache }),
  };
  const claims: JWTPayload & { response: ResponseClaim } = {
    iss: options.issuer,
    iat: now,
    nbf: now,
    exp: now + (options.lifetime ?? 30),
    response,
  };
  if (options.audience !== undefined) claims.aud = options.audience;
  if (options.subject !== undefined) claims.sub = options.subject;
  if (options.jti !== undefined) claims.jti = options.jti;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.algorithm ?? 'RS512', kid: options.signingKey.kid, typ: 'JWT' })
    .sign(options.signingKey.privateKey);
}

export interface VerifyResponseJwtOptions {
  readonly binding: HttpResponseBinding;
  readonly issuer: string;
  readonly audience: string;
  readonly subject?: string;
  readonly jti: string;
  readonly resolveKey: KeyResolver;
  readonly now: number;
  readonly leeway: number;
  readonly maxLifetime: number;
}

/** Verifies a response JWT the way the Java SDK does, which is the stricter of the two (sdk-compatibility §4.2). */
export async function verifyResponseJwt(
  token: string,
  options: VerifyResponseJwtOptions,
): Promise<JWTPayload> {
  const claims = await verifyJws(token, options);
  if (claims.jti !== options.jti)
    throw new ProtocolRejection('claims', 'the response jti is not the request jti');
  const response = claims.response;
  if (!isObject(response)) throw new ProtocolRejection('binding', 'the response claim is missing');
  const { binding } = options;
  if (response.status !== binding.status) {
    throw new ProtocolRejection(
      'binding',
      `response.status ${String(response.status)} is not ${binding.status}`,
    );
  }
  if (response.location !== binding.location) {
    throw new ProtocolRejection('binding', 'response.location does not mirror the Location header');
  }
  if (response.cache !== binding.cache) {
    throw new ProtocolRejection('binding', 'response.cache does not mirror the Cache-Control header');
  }
  checkBodyHash(response, binding.body);
  return claims;
}
