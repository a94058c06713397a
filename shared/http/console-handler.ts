import { timingSafeEqual } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { outcomeOf } from '#shared/audit/audit-record';
import { recordConsoleAction } from '#shared/audit/console-action-record';
import type { AdminAccount } from '#shared/domain/console-admin';
import { type ConsoleAction, mayPerform } from '#shared/domain/console-permissions';
import {
  type ConsoleSession,
  consoleAbsoluteSeconds,
  sessionIsConfirmed,
  sessionMayAct,
} from '#shared/domain/console-session';
import { ApiError, invalidArgument, notFound } from '#shared/errors';
import { callerAddress } from '#shared/http/caller-address';
import {
  type HttpEvent,
  header,
  passkeyOrigin,
  publicBaseUrl,
  rawBody,
  requestPath,
} from '#shared/http/event';
import { edgeOrigin } from '#shared/http/middlewares/edge-origin';
import { maxConsoleBodyBytes } from '#shared/http/schemas/console';
import { validateBody } from '#shared/http/schemas/validate-body';
import { logger } from '#shared/log';
import { observability } from '#shared/observability';
import { liveSession } from '#shared/use-cases/console-sessions';
import { epochSeconds } from '#shared/time';

type HttpResult = APIGatewayProxyStructuredResultV2;

/** Where the console's API lives; its routes are paths under it. */
export const consoleApiPrefix = '/console/api';

/** The session cookie: `__Host-` binds it to this origin, path `/` and Secure; script never reads it. */
export const sessionCookieName = '__Host-console';

const cookieAttributes = 'Path=/; Secure; HttpOnly; SameSite=Strict';

export const sessionCookie = (token: string) =>
  `${sessionCookieName}=${token}; ${cookieAttributes}; Max-Age=${consoleAbsoluteSeconds}`;
export const clearedSessionCookie = `${sessionCookieName}=; ${cookieAttributes}; Max-Age=0`;

/** What a console endpoint answers: a status, a JSON body, cookies to set, and who to name in the audit record. */
export interface ConsoleReply {
  readonly status: number;
  readonly body?: unknown;
  readonly cookies?: readonly string[];
  /** For an endpoint that acts before there is a session (an enrolment, a sign-in): the admin it acted for. */
  readonly actor?: {
    readonly admin: Pick<AdminAccount, 'adminId' | 'role' | 'organizationId' | 'name'>;
    readonly sessionId?: string;
  };
  readonly targetId?: string;
  /** A read that changed the session (an approval it concluded): recorded like a change. */
  readonly changed?: boolean;
  /**
   * What the change touched, for its audit record: the organization (the operator's changes go to the organization
   * they touched, not the deployment's partition), and the directory, service, user and device, which the audit
   * trail's filters read.
   */
  readonly touched?: ConsoleTouched;
  /** A file to download instead of a JSON body (an audit export as CSV). */
  readonly download?: { readonly contentType: string; readonly filename: string; readonly text: string };
}

/** What a console change touched, as its audit record names it. */
export interface ConsoleTouched {
  readonly organizationId?: string;
  readonly directoryId?: string;
  readonly serviceId?: string;
  readonly user?: string;
  readonly deviceId?: string;
}

export interface ConsoleRequest<Body> {
  readonly event: HttpEvent;
  readonly body: Body;
  readonly parameters: Readonly<Record<string, string>>;
  /** Present on every endpoint but those that start a session. */
  readonly session: ConsoleSession | undefined;
  /** The session cookie's token, when there is one. */
  readonly token: string | undefined;
  readonly now: Date;
}

/**
 * One endpoint of the console: its method and path under /console/api (`{name}` a segment), what it needs of the
 * caller, and the schema of its body. `signed-out` endpoints start a session (enrolment, sign-in) and need none;
 * `session` endpoints need a live one whatever its stage (who am I, sign out); the others need a session that may act
 * and a role that may do that kind of action.
 */
export interface ConsoleEndpoint<S extends v.GenericSchema | undefined = v.GenericSchema | undefined> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly needs: 'signed-out' | 'session' | ConsoleAction;
  readonly schema: S;
  /**
   * A change that needs the admin's passkey given within the last minutes of the session (keys, unlinking, roles):
   * otherwise 403 CON-010, and the page asks for the passkey (POST /console/api/confirmation) and tries again.
   */
  readonly confirmed?: true;
  handle(
    request: ConsoleRequest<S extends v.GenericSchema ? v.InferOutput<S> : undefined>,
  ): Promise<ConsoleReply>;
}

export function endpoint<S extends v.GenericSchema | undefined>(
  definition: ConsoleEndpoint<S>,
): ConsoleEndpoint {
  return definition;
}

interface CompiledEndpoint {
  readonly endpoint: ConsoleEndpoint;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(endpoints: readonly ConsoleEndpoint[]): CompiledEndpoint[] {
  return endpoints.map((endpoint) => {
    const names: string[] = [];
    const source = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { endpoint, pattern: new RegExp(`^${source}$`), names };
  });
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The console's pipeline, beside the signed one: route → body bounds and schema → the browser's own cross-site
 * signals → session (cookie, idle and absolute deadlines) → stage → role → CSRF token → the endpoint → an audit record
 * of every change. Answers are JSON in the API's error shape, never cached.
 */
export function consoleHandler(endpoints: readonly ConsoleEndpoint[]) {
  const compiled = compile(endpoints);
  return middy<HttpEvent, HttpResult, Error, Context>(async (event: HttpEvent) => {
    const now = new Date();
    const method = event.requestContext.http.method.toUpperCase();
    const path = requestPath(event).slice(consoleApiPrefix.length);
    const { endpoint, parameters } = route(compiled, method, path);
    const unsafe = !safeMethods.has(method);
    if (unsafe) checkCrossSite(event);
    const body = endpoint.schema ? parsedBody(event, endpoint.schema) : undefined;
    const token = cookieValue(event, sessionCookieName);
    let session: ConsoleSession | undefined;
    if (endpoint.needs !== 'signed-out') {
      session = await liveSession(token, now);
      if (endpoint.needs !== 'session') {
        if (!sessionMayAct(session)) {
          throw new ApiError('CON-005', 'Approve this sign-in on your authenticator before you act');
        }
        if (!mayPerform(session.role, endpoint.needs)) {
          throw new ApiError('CON-003', `A ${session.role} may not do this`);
        }
      }
      if (unsafe) checkCsrfToken(event, session);
      if (endpoint.confirmed && !sessionIsConfirmed(session, epochSeconds(now))) {
        throw new ApiError('CON-010', 'Confirm it is you with your passkey first, then try again');
      }
    }
    const reply = await withAuditOf(event, method, endpoint, session, now, () =>
      endpoint.handle({ event, body, parameters, session, token, now }),
    );
    if (reply.download) return downloadOf(reply.status, reply.download);
    return {
      statusCode: reply.status,
      headers: jsonHeaders,
      ...(reply.body === undefined ? {} : { body: JSON.stringify(reply.body) }),
      ...(reply.cookies ? { cookies: [...reply.cookies] } : {}),
    };
  })
    .use(edgeOrigin())
    .use(observability())
    .use({
      onError: (request) => {
        if (request.response) return;
        const error = request.error;
        if (!(error instanceof ApiError) || error.status >= 500)
          logger.error('Console request failed', { error });
        request.response = refusal(error instanceof ApiError ? error : undefined);
      },
    });
}

const jsonHeaders = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A file the browser saves rather than shows: its own type, named, never sniffed or cached. */
function downloadOf(status: number, download: NonNullable<ConsoleReply['download']>): HttpResult {
  return {
    statusCode: status,
    headers: {
      'content-type': download.contentType,
      'content-disposition': `attachment; filename="${download.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: download.text,
  };
}

function route(
  compiled: readonly CompiledEndpoint[],
  method: string,
  path: string,
): { endpoint: ConsoleEndpoint; parameters: Record<string, string> } {
  for (const { endpoint, pattern, names } of compiled) {
    if (endpoint.method !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const parameters: Record<string, string> = {};
    names.forEach((name, index) => {
      parameters[name] = decoded(match[index + 1] ?? '');
    });
    return { endpoint, parameters };
  }
  throw notFound(`No console endpoint ${method} ${consoleApiPrefix}${path}`);
}

/** A path parameter, decoded; one that is not valid percent-encoding as it came, to be refused like any unknown id. */
function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function parsedBody(event: HttpEvent, schema: v.GenericSchema): unknown {
  const raw = rawBody(event);
  if (raw && raw.length > maxConsoleBodyBytes) {
    throw new ApiError('HTTP-413', `The request body is larger than ${maxConsoleBodyBytes} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw?.toString('utf8') ?? '');
  } catch {
    throw invalidArgument('The body must be JSON');
  }
  return validateBody(schema, value);
}

/**
 * What the browser says of where a request that changes something comes from: `Sec-Fetch-Site` must be
 * `same-origin` and `Origin` the console's own (its passkeys' origin), whenever the browser sends them. SameSite=Strict already keeps
 * the cookie off other sites' requests; this also covers the sign-in, which has no session yet (login CSRF).
 */
function checkCrossSite(event: HttpEvent): void {
  const site = header(event, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') {
    throw new ApiError('CON-002', 'The console takes changes only from its own pages');
  }
  const origin = header(event, 'origin');
  // The console works only on its passkeys' origin, which a forged Host header cannot choose.
  const own = passkeyOrigin(event) ?? new URL(publicBaseUrl(event)).origin;
  if (origin !== undefined && origin !== own) {
    throw new ApiError('CON-002', 'The console takes changes only from its own origin');
  }
}

/** The session's CSRF secret, which only the console's own pages read (GET /console/api/session), in `X-CSRF-Token`. */
function checkCsrfToken(event: HttpEvent, session: ConsoleSession): void {
  const presented = Buffer.from(header(event, 'x-csrf-token') ?? '');
  const expected = Buffer.from(session.csrfSecret);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new ApiError('CON-002', 'X-CSRF-Token is missing or not this session’s');
  }
}

/** The value of a cookie, from payload 2.0's `cookies` (or a Cookie header, should one come through). */
export function cookieValue(event: HttpEvent, name: string): string | undefined {
  const cookies = event.cookies ?? header(event, 'cookie')?.split(/;\s*/) ?? [];
  for (const cookie of cookies) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === name) {
      const value = cookie.slice(at + 1).trim();
      return value === '' || value.length > 128 ? undefined : value;
    }
  }
  return undefined;
}

/**
 * Runs an endpoint and records what it did when it changes state (every method but GET) and an admin is known: the
 * session's, or the one the endpoint acted for. A refusal after the session is known is recorded too.
 */
async function withAuditOf(
  event: HttpEvent,
  method: string,
  endpoint: ConsoleEndpoint,
  session: ConsoleSession | undefined,
  now: Date,
  run: () => Promise<ConsoleReply>,
): Promise<ConsoleReply> {
  const record = (
    actor: ConsoleReply['actor'],
    status: number,
    extra: { errorCode?: string; targetId?: string; touched?: ConsoleTouched } = {},
  ) =>
    actor
      ? recordConsoleAction(
          {
            admin: actor.admin,
            ...(actor.sessionId ? { sessionId: actor.sessionId } : {}),
            operation: `${method} ${consoleApiPrefix}${endpoint.path}`,
            requestId: event.requestContext.requestId,
            sourceIp: callerAddress(event),
            outcome: outcomeOf(status),
            status,
            ...(extra.errorCode ? { errorCode: extra.errorCode } : {}),
            ...(extra.targetId ? { targetId: extra.targetId } : {}),
            ...extra.touched,
          },
          now,
        )
      : Promise.resolve();
  const sessionActor = session ? { admin: session, sessionId: session.sessionId } : undefined;
  if (method === 'GET') {
    const reply = await run();
    if (reply.changed)
      await record(
        reply.actor ?? sessionActor,
        reply.status,
        reply.targetId ? { targetId: reply.targetId } : {},
      );
    return reply;
  }
  try {
    const reply = await run();
    await record(reply.actor ?? sessionActor, reply.status, {
      ...(reply.targetId ? { targetId: reply.targetId } : {}),
      ...(reply.touched ? { touched: reply.touched } : {}),
    });
    return reply;
  } catch (error) {
    if (error instanceof ApiError) await record(sessionActor, error.status, { errorCode: error.code });
    throw error;
  }
}

function refusal(error: ApiError | undefined): HttpResult {
  const body = error
    ? {
        error_code: error.code,
        error_detail: error.detail,
        ...(error.data ? { error_data: error.data } : {}),
      }
    : { error_code: 'HTTP-500', error_detail: 'Internal error' };
  const retryAfter = error?.data?.retry_after;
  return {
    statusCode: error?.status ?? 500,
    headers: {
      ...jsonHeaders,
      ...(error?.status === 429 && typeof retryAfter === 'number'
        ? { 'retry-after': String(retryAfter) }
        : {}),
    },
    body: JSON.stringify(body),
  };
}
