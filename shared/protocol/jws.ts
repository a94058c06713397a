import type { KeyObject as NodeKeyObject } from 'node:crypto';
import {
  type CryptoKey,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWK,
  type JWTPayload,
  jwtVerify,
  type KeyObject,
  SignJWT,
} from 'jose';
import { echoValue } from '#shared/echo';
import { contentHash, type HashFunction, isHashFunction } from '#shared/protocol/content-hash';
import { ProtocolRejection } from '#shared/protocol/rejection';

/** Both SDKs sign with RSASSA-PKCS1-v1_5 only: JV always RS256, PY RS512 by default (docs/protocol.md#request-jwt). */
export type SignatureAlgorithm = 'RS256' | 'RS384' | 'RS512';
export const signatureAlgorithms: readonly SignatureAlgorithm[] = ['RS256', 'RS384', 'RS512'];

/** A key jose works with: a node KeyObject on the server, a CryptoKey or JWK in the client and in a browser. */
export type KeyMaterial = CryptoKey | KeyObject | JWK;

/** The server's keys are node KeyObjects (the default); the client's may be any `KeyMaterial`. */
export interface SigningKey<K extends KeyMaterial = NodeKeyObject> {
  readonly kid: string;
  readonly privateKey: K;
}

export interface JwsHeader {
  readonly alg: SignatureAlgorithm;
  readonly kid: string;
}

export interface TimeOptions {
  /** Current time, epoch seconds. */
  readonly now: number;
  /** Allowed clock difference, seconds. */
  readonly leeway: number;
}

export interface SignJwsOptions {
  readonly signingKey: SigningKey<KeyMaterial>;
  readonly algorithm?: SignatureAlgorithm;
  readonly issuer: string;
  readonly audience?: string;
  readonly subject?: string;
  readonly jti?: string;
  /** Epoch seconds. */
  readonly now: number;
  /** Seconds from iat to exp. */
  readonly lifetime: number;
}

/** Signs a JWT with the identity and time claims every token of the protocol carries, plus `extra`. */
export function signJws(options: SignJwsOptions, extra: Record<string, unknown>): Promise<string> {
  const { now } = options;
  const claims: JWTPayload = {
    iss: options.issuer,
    iat: now,
    nbf: now,
    exp: now + options.lifetime,
    ...extra,
  };
  if (options.audience !== undefined) claims.aud = options.audience;
  if (options.subject !== undefined) claims.sub = options.subject;
  if (options.jti !== undefined) claims.jti = options.jti;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.algorithm ?? 'RS512', kid: options.signingKey.kid, typ: 'JWT' })
    .sign(options.signingKey.privateKey);
}

export type KeyResolver = (header: JwsHeader, unverifiedClaims: JWTPayload) => Promise<KeyMaterial>;

/**
 * Reads a compact JWS's header and claims without trusting either, so that a key can be chosen and a refusal can still
 * be addressed to whoever the token claims to come from.
 */
export function decodeUnverified(token: string): { header: Record<string, unknown>; claims: JWTPayload } {
  if (typeof token !== 'string' || token.split('.').length !== 3) {
    throw new ProtocolRejection('malformed', 'the token is not a compact JWS');
  }
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch (cause) {
    throw new ProtocolRejection('malformed', 'the token header or claims do not decode', { cause });
  }
}

/** Only RS256/384/512 with a kid: `none`, HMAC and everything else are refused before any key is looked up. */
export function acceptedHeader(header: Record<string, unknown>): JwsHeader {
  if (!signatureAlgorithms.includes(header.alg as SignatureAlgorithm)) {
    throw new ProtocolRejection('signature', `JWS alg ${echoValue(header.alg)} is not accepted`);
  }
  if (typeof header.kid !== 'string' || header.kid.length === 0) {
    throw new ProtocolRejection('malformed', 'the token header has no kid');
  }
  return { alg: header.alg as SignatureAlgorithm, kid: header.kid };
}

export interface VerifyJwsOptions extends TimeOptions {
  readonly audience: string | readonly string[];
  readonly issuer?: string;
  readonly subject?: string;
  /** Longest accepted exp − iat, seconds. */
  readonly maxLifetime: number;
  readonly resolveKey: KeyResolver;
}

/**
 * Verifies signature, audience, issuer and times. Every jose failure becomes one rejection reason, with jose's error
 * kept as the cause for the log.
 */
export async function verifyJws(token: string, options: VerifyJwsOptions): Promise<JWTPayload> {
  const { header, claims: unverified } = decodeUnverified(token);
  const key = await options.resolveKey(acceptedHeader(header), unverified);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [...signatureAlgorithms],
      audience: typeof options.audience === 'string' ? options.audience : [...options.audience],
      ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
      ...(options.subject === undefined ? {} : { subject: options.subject }),
      clockTolerance: options.leeway,
      // maxTokenAge makes jose also refuse an iat in the future beyond the leeway.
      maxTokenAge: options.maxLifetime + options.leeway,
      currentDate: new Date(options.now * 1000),
      requiredClaims: ['iss', 'jti', 'iat', 'exp'],
    }));
  } catch (cause) {
    throw joseRejection(cause);
  }
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 128) {
    throw new ProtocolRejection('claims', 'jti must be a non-empty string of at most 128 characters');
  }
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (exp - iat > options.maxLifetime) {
    throw new ProtocolRejection('claims', `token lifetime ${exp - iat}s exceeds ${options.maxLifetime}s`);
  }
  return payload;
}

function joseRejection(cause: unknown): ProtocolRejection {
  if (cause instanceof errors.JWSSignatureVerificationFailed || cause instanceof errors.JOSEAlgNotAllowed) {
    return new ProtocolRejection('signature', 'the signature does not verify', { cause });
  }
  if (cause instanceof errors.JWTClaimValidationFailed || cause instanceof errors.JWTExpired) {
    return new ProtocolRejection('claims', cause.message, { cause });
  }
  return new ProtocolRejection('malformed', 'the token is malformed', { cause });
}

/** `hash`/`func` as they appear in `request` and `response` claims: both present iff there is a body. */
export interface BodyHashClaims {
  hash?: string;
  func?: HashFunction;
}

export function bodyHashClaims(body: Uint8Array | string | undefined, func: HashFunction): BodyHashClaims {
  if (body === undefined || body.length === 0) return {};
  return { hash: contentHash(func, body), func };
}

/** Checks that `hash`/`func` describe the body that arrived, and that neither is there when no body is. */
export function checkBodyHash(claim: Record<string, unknown>, body: Uint8Array | string | undefined): void {
  const hasBody = body !== undefined && body.length > 0;
  const { hash, func } = claim;
  if (!hasBody) {
    if (hash !== undefined || func !== undefined) {
      throw new ProtocolRejection('binding', 'hash and func must be absent when there is no body');
    }
    return;
  }
  if (hash === undefined || func === undefined) {
    throw new ProtocolRejection('binding', 'hash and func are required when there is a body');
  }
  if (!isHashFunction(func))
    throw new ProtocolRejection('binding', `unknown hash function ${echoValue(func)}`);
  if (typeof hash !== 'string' || !constantTimeEqual(hash.toLowerCase(), contentHash(func, body))) {
    throw new ProtocolRejection('binding', 'the body hash does not match');
  }
}

// The length of a hex digest is public; its characters are compared without an early exit.
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
