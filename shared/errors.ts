import { clip, maxDetailLength } from '#shared/echo';

/**
 * The error catalogue. Codes the LaunchKey SDKs know (docs/protocol.md#error-codes) keep their meaning and travel on 400 or
 * 409, the only statuses whose bodies the Java SDK reads. `AUTH-*` codes name why a signed request was refused (401);
 * `HTTP-*` codes mark errors that have a status but no catalogue code, and are what the Python SDK would synthesise.
 */
export const errorStatus = {
  'ARG-001': 400,
  'ARG-002': 400,
  'SVC-001': 400,
  'SVC-002': 400,
  'SVC-003': 400,
  'SVC-004': 400,
  'SVC-005': 409,
  'SVC-006': 400,
  'SVC-007': 400,
  /** A number-matching request that ended after too many wrong codes (docs/protocol.md#number-matching). */
  'SVC-008': 400,
  /** A device's answer with the wrong number-matching code; the request stays pending while attempts remain. */
  'SVC-009': 400,
  'DIR-001': 400,
  'KEY-001': 400,
  'KEY-002': 400,
  'KEY-003': 400,
  'KEY-004': 400,
  'ORG-003': 400,
  'ORG-005': 400,
  'ORG-006': 400,
  /** Authorization header missing, of an unknown scheme, or not a well-formed JWT. */
  'AUTH-001': 401,
  /** The issuer has no active, unexpired, signature-capable key with that kid. */
  'AUTH-002': 401,
  /** The algorithm is not allowed or the signature does not verify. */
  'AUTH-003': 401,
  /** A claim is wrong: audience, times, lifetime, jti or subject. */
  'AUTH-004': 401,
  /** The JWT does not describe this request: method, path, query or body hash. */
  'AUTH-005': 401,
  /** The jti was used before. */
  'AUTH-006': 401,
  /** The issuer has no active encryption-capable key, so no response can be encrypted to it. */
  'AUTH-007': 401,
  /** Too many requests for one user in the directory's rate-limit window (docs/protocol.md#push-fatigue). */
  'USR-001': 429,
  /** The user is locked after denying a request as fraud (docs/protocol.md#push-fatigue). */
  'USR-002': 429,
  /** The console: no session, or it ended (idle, absolute timeout, signed out) (docs/console.md#errors). */
  'CON-001': 401,
  /** The console: a request that changes something without its session's CSRF token, or from another site. */
  'CON-002': 403,
  /** The console: the admin's role may not do this. */
  'CON-003': 403,
  /** The console: no such thing in the admin's organization (another organization's looks the same). */
  'CON-004': 404,
  /** The console: the sign-in is not approved yet, and the admin's role needs it to act. */
  'CON-005': 403,
  /** The console: an invite or passkey ceremony that is unknown, used or expired, or a passkey that does not verify. */
  'CON-006': 403,
  /** The console: no authenticator linked to approve the admin's sign-ins (docs/console.md#approval). */
  'CON-007': 409,
  /** The console: an approval cannot start: one is pending for the admin already, or the sign-in is approved. */
  'CON-008': 409,
  /** The console: the change would leave the organization without an owner (docs/console.md#admin-management). */
  'CON-009': 409,
  /**
   * The console: a change that needs the admin's passkey again (keys, unlinking, roles), and it was not given within
   * the last 5 minutes of this session (docs/console.md#confirming-with-the-passkey).
   */
  'CON-010': 403,
  'HTTP-403': 403,
  'HTTP-404': 404,
  /** A request that has expired, on the device API (the service API answers 408 without a body). */
  'HTTP-408': 408,
  'HTTP-413': 413,
  /** Too many failed device links from one address, or with one directory's SDK keys (docs/protocol.md#linking). */
  'HTTP-429': 429,
  'HTTP-500': 500,
  'HTTP-503': 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ApiErrorOptions {
  readonly data?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * An error the caller is meant to see: its code, its status, a detail that names what was wrong. The detail is capped
 * so that no refusal, whatever it quotes, is larger than a few hundred characters.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly detail: string;
  readonly data: Readonly<Record<string, unknown>> | undefined;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: ApiErrorOptions = {},
  ) {
    const capped = clip(detail, maxDetailLength);
    super(`${code}: ${capped}`, { cause: options.cause });
    this.status = errorStatus[code];
    this.detail = capped;
    this.data = options.data;
  }
}

export function invalidArgument(detail: string, cause?: unknown): ApiError {
  return new ApiError('ARG-001', detail, { cause });
}

export function forbidden(detail: string): ApiError {
  return new ApiError('HTTP-403', detail);
}

export function notFound(detail: string): ApiError {
  return new ApiError('HTTP-404', detail);
}

export function serviceUnavailable(detail: string, cause?: unknown): ApiError {
  return new ApiError('HTTP-503', detail, { cause });
}
