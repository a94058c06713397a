import type { ConsoleAction } from '#shared/domain/console-permissions';

/**
 * The console's API as its pages call it: JSON under `api/` beside the page (so a stage prefix in the path is kept),
 * the session cookie sent by the browser, and the session's CSRF token on every request that changes anything.
 */

/** A refusal in the API's error shape, or a network failure (status 0). */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
  }
}

/** Who is signed in (GET /console/api/session). */
export interface SessionView {
  readonly admin_id: string;
  readonly name: string;
  readonly role: string;
  readonly organization_id: string | null;
  readonly stage: 'passkey' | 'approved';
  readonly csrf_token: string;
  /** What the role may do (the permission kinds of docs/console.md#admins-and-roles). */
  readonly may: readonly ConsoleAction[];
}

let csrfToken: string | undefined;
let sessionEnded: (detail: string) => void = () => undefined;

/** What to do when the API says the session ended (401 CON-001), wherever that happens. */
export function onSessionEnded(handler: (detail: string) => void): void {
  sessionEnded = handler;
}

/** Ends the page's session as the service said it ended (an approval denied or failed), with its reason. */
export function endSession(detail: string): void {
  if (csrfToken === undefined) return;
  csrfToken = undefined;
  sessionEnded(detail);
}

/** Keeps the CSRF token of the session just read or started; undefined once signed out. */
export function useSession(session: SessionView | undefined): void {
  csrfToken = session?.csrf_token;
}

/** Whether the page holds a session it read or started (and has not seen end). */
export const hasSession = () => csrfToken !== undefined;

export async function call<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(`api/${path}`, document.baseURI), {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method !== 'GET' && csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ConsoleApiError(
      0,
      'NETWORK',
      'The service could not be reached. Check the connection and try again.',
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  const refusal = (parsed ?? {}) as { error_code?: unknown; error_detail?: unknown };
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ConsoleApiError(
    response.status,
    typeof refusal.error_code === 'string' ? refusal.error_code : `HTTP-${response.status}`,
    typeof refusal.error_detail === 'string' ? refusal.error_detail : response.statusText,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
  if (error.status === 401 && error.code === 'CON-001' && csrfToken !== undefined) {
    csrfToken = undefined;
    sessionEnded(error.detail);
  }
  throw error;
}
