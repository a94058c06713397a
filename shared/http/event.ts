import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpRequestBinding } from '#shared/protocol/request-jwt';

export type HttpEvent = APIGatewayProxyEventV2;

/** API Gateway lowercases header names; callers ask with lowercase names. */
export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers?.[name];
}

/** The body exactly as the client sent it, since the signed hash covers these bytes; undefined when there is none. */
export function rawBody(event: HttpEvent): Buffer | undefined {
  if (!event.body) return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

export function requestBinding(event: HttpEvent): HttpRequestBinding {
  const body = rawBody(event);
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    query: event.rawQueryString,
    ...(body === undefined ? {} : { body }),
  };
}
