import type { JWTPayload } from 'jose';
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

/** The parts of an HTTP response that its JWT vouches for (docs/protocol.md#response-jwt). */
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

export interface SignResponseJwtOptions extends Omit<SignJwsOptions, 'lifetime'> {
  /** The API identity the request addressed (`api` or `lka`); the audience is the requester's claimed `iss`, and
   * `jti` the request's, echoed so the caller can pair response and request. */
  readonly issuer: string;
  readonly binding: HttpResponseBinding;
  readonly hashFunction?: HashFunction;
  readonly lifetime?: number;
}

export async function signResponseJwt(options: SignResponseJwtOptions): Promise<string> {
  const { binding } = options;
  const response: ResponseClaim = {
    status: binding.status,
    ...bodyHashClaims(binding.body, options.hashFunction ?? 'S256'),
    ...(binding.location === undefined ? {} : { location: binding.location }),
    ...(binding.cache === undefined ? {} : { cache: binding.cache }),
  };
  return signJws({ ...options, lifetime: options.lifetime ?? 30 }, { response });
}

export interface VerifyResponseJwtOptions extends VerifyJwsOptions {
  readonly audience: string;
  readonly binding: HttpResponseBinding;
  readonly jti: string;
}

/** Verifies a response JWT the way the Java SDK does, which is the stricter of the two (docs/protocol.md#response-jwt). */
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
