import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { FcmServiceAccount } from '#shared/domain/android-key';
import type { PushResult } from '#shared/push/provider';
import { postToService, type ServiceAnswer } from '#shared/push/service-post';
import { retryAfterSeconds } from '#shared/push/post';

/** The scope FCM HTTP v1 asks for. */
export const fcmScope = 'https://www.googleapis.com/auth/firebase.messaging';

export interface TokenSource {
  readonly account: FcmServiceAccount;
  readonly tokenUrl: string;
  readonly timeoutMs: number;
  readonly ca?: string | undefined;
}

export type AccessToken =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly result: Exclude<PushResult, { outcome: 'delivered' | 'gone' }> };

interface Cached {
  readonly token: string;
  /** When to stop using it: shortly before Google's expiry. */
  readonly renewAt: number;
}

// Module-level so that the providers the worker makes per message share one token per key, and concurrent first
// sends share one grant.
const cached = new Map<string, Cached>();
const pending = new Map<string, Promise<AccessToken>>();

const cacheKey = (source: TokenSource) =>
  `${source.tokenUrl} ${source.account.clientEmail}#${source.account.privateKeyId}`;

/** A bearer token for FCM: the cached one while it lasts, else one from an RFC 7523 JWT grant signed with the key. */
export function fcmAccessToken(source: TokenSource): Promise<AccessToken> {
  const key = cacheKey(source);
  const hit = cached.get(key);
  if (hit && Date.now() < hit.renewAt) return Promise.resolve({ ok: true, token: hit.token });
  let request = pending.get(key);
  if (!request) {
    request = grant(source, key).finally(() => pending.delete(key));
    pending.set(key, request);
  }
  return request;
}

/** Forgets a token FCM refused (401), unless a newer one already replaced it. */
export function dropFcmAccessToken(source: TokenSource, token: string): void {
  const key = cacheKey(source);
  if (cached.get(key)?.token === token) cached.delete(key);
}

async function grant(source: TokenSource, key: string): Promise<AccessToken> {
  const { account, tokenUrl } = source;
  const iat = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ scope: fcmScope })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: account.privateKeyId })
    .setIssuer(account.clientEmail)
    .setAudience(tokenUrl)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(createPrivateKey(account.privateKeyPem));
  const answer = await postToService({
    url: new URL(tokenUrl),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion,
    }).toString(),
    timeoutMs: source.timeoutMs,
    ca: source.ca,
  });
  if (!answer.answered)
    return { ok: false, result: { outcome: 'retry-after', reason: `token endpoint: ${answer.reason}` } };
  const { status } = answer;
  if (status === 429 || status >= 500) {
    const seconds = retryAfterSeconds(answerHeader(answer, 'retry-after'));
    return {
      ok: false,
      result: {
        outcome: 'retry-after',
        reason: `the token endpoint answered ${status}`,
        status,
        ...(seconds === undefined ? {} : { seconds }),
      },
    };
  }
  const json = parseObject(answer.body);
  if (status !== 200) {
    // RFC 6749 §5.2: the error code says why (invalid_grant: a revoked key, a wrong clock, …); the description is
    // Google's prose, not needed in a log.
    const code =
      typeof json?.error === 'string' && /^[a-z_]{1,64}$/.test(json.error) ? json.error : 'no error code';
    return {
      ok: false,
      result: { outcome: 'failed', reason: `the token endpoint answered ${status} ${code}`, status },
    };
  }
  const token = json?.access_token;
  const expiresIn = json?.expires_in;
  if (
    typeof token !== 'string' ||
    !/^[\x21-\x7e]{1,4096}$/.test(token) ||
    typeof expiresIn !== 'number' ||
    !Number.isFinite(expiresIn) ||
    expiresIn <= 0
  ) {
    return {
      ok: false,
      result: { outcome: 'retry-after', reason: 'the token endpoint answered 200 without a token' },
    };
  }
  // A minute's margin for clocks and the send's own time; less for a token that lives less than two minutes.
  const lifetimeMs = Math.min(expiresIn, 24 * 3600) * 1000;
  cached.set(key, { token, renewAt: Date.now() + lifetimeMs - Math.min(60_000, lifetimeMs / 2) });
  return { ok: true, token };
}

/** One header of an answer, the first when repeated. */
export function answerHeader(
  answer: Extract<ServiceAnswer, { answered: true }>,
  name: string,
): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The answer's JSON object, or undefined for anything else (a proxy's HTML page, a cut answer). */
export function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(body);
    return typeof json === 'object' && json !== null && !Array.isArray(json)
      ? (json as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
