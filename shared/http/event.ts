import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '#shared/errors';
import type { HttpRequestBinding } from '#shared/protocol/request-jwt';

export type HttpEvent = APIGatewayProxyEventV2;

/** API Gateway lowercases header names; callers ask with lowercase names. */
export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers?.[name];
}

/**
 * The largest request body any endpoint accepts: Lambda's synchronous invocation payload limit, above which API
 * Gateway refuses a request before a function sees it.
 */
export const maxRequestBodyBytes = 6 * 1024 * 1024;

/** The body exactly as the client sent it, since the signed hash covers these bytes; undefined when there is none. */
export function rawBody(event: HttpEvent): Buffer | undefined {
  if (!event.body) return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * The base URL clients reach this API at, for links the API hands out: PUBLIC_BASE_URL when an operator set one (a
 * custom domain), otherwise the scheme, host and stage the request came in on.
 */
export function publicBaseUrl(event: HttpEvent): string {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  return `${requestOrigin(event)}${stagePrefix(event)}`;
}

/** The scheme and host the request says it came in at: the client's to choose, so never a security boundary. */
function requestOrigin(event: HttpEvent): string {
  const scheme = header(event, 'x-forwarded-proto') ?? 'https';
  return `${scheme}://${header(event, 'host') ?? event.requestContext.domainName}`;
}

/**
 * The origin passkeys are bound to (their RP id and origin, docs/protocol.md#passkeys): PUBLIC_BASE_URL's when set;
 * otherwise the request's own only if WEBAUTHN_ORIGINS (URLs, comma-separated) lists it, else the first listed; none
 * when neither is set. A forged Host header cannot choose the relying party.
 */
export function passkeyOrigin(event: HttpEvent): string | undefined {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return new URL(configured).origin;
  const allowed = (process.env.WEBAUTHN_ORIGINS ?? '')
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => new URL(entry.trim()).origin);
  const requested = requestOrigin(event);
  return allowed.includes(requested) ? requested : allowed[0];
}

/**
 * The path of the operation, as the route table names it and as a client signs it in `request.path`. API Gateway
 * keeps a named stage in `rawPath` (`/prod/service/v3/auths`) when the request comes in at the API's own endpoint,
 * while the SDKs sign only the path they append to their base URL, which holds the stage. So the stage goes.
 */
export function requestPath(event: HttpEvent): string {
  const prefix = stagePrefix(event);
  return prefix ? event.rawPath.slice(prefix.length) || '/' : event.rawPath;
}

/**
 * `/<stage>` when the path arrived under its named stage; empty under `$default`, and through a custom domain, whose
 * mapping puts no stage in the path.
 */
function stagePrefix(event: HttpEvent): string {
  const { stage } = event.requestContext;
  if (!stage || stage === '$default') return '';
  const prefix = `/${stage}`;
  return event.rawPath === prefix || event.rawPath.startsWith(`${prefix}/`) ? prefix : '';
}

/**
 * The body of a request an endpoint reads, refused with HTTP-413 when it is larger than the gateway passes on: such a
 * body can only reach a function that is invoked some other way, and it gets the answer a client would.
 */
export function acceptedBody(event: HttpEvent): Buffer | undefined {
  const body = rawBody(event);
  if (body && body.length > maxRequestBodyBytes) {
    throw new ApiError('HTTP-413', `The request body is larger than ${maxRequestBodyBytes} bytes`);
  }
  return body;
}

/** The HTTP message a request JWT's `request` claim must describe exactly. */
export function requestBinding(event: HttpEvent): HttpRequestBinding {
  const body = rawBody(event);
  return {
    method: event.requestContext.http.method,
    path: requestPath(event),
    query: event.rawQueryString,
    ...(body === undefined ? {} : { body }),
  };
}
