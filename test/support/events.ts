import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { PreparedRequest } from '#shared/client/api-client';
import type { HttpEvent } from '#shared/http/event';

/** A request of an unsigned route in the shape of a prepared one: no jti and no subject. */
export function unsignedRequest(
  path: string,
  options: {
    readonly method?: string;
    readonly headers?: Record<string, string>;
    readonly body?: string;
  } = {},
): PreparedRequest {
  return {
    method: options.method ?? 'GET',
    path,
    headers: options.headers ?? {},
    body: options.body,
    jti: '',
    subject: '',
  };
}

/**
 * The API Gateway HTTP API v2 event a prepared request would arrive as, for invoking a handler in-process, with the
 * request id API Gateway gave it (the correlation id of every log line).
 */
export function toHttpEvent(request: PreparedRequest, requestId = 'test'): HttpEvent {
  const queryAt = request.path.indexOf('?');
  const rawPath = queryAt === -1 ? request.path : request.path.slice(0, queryAt);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: queryAt === -1 ? '' : request.path.slice(queryAt + 1),
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
    ),
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(request.body === undefined
      ? { isBase64Encoded: false }
      : { body: Buffer.from(request.body).toString('base64'), isBase64Encoded: true }),
  };
}

/** A handler's result as the fetch Response API Gateway would turn it into. */
export function toResponse(result: APIGatewayProxyStructuredResultV2): Response {
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : null;
  return new Response(body, {
    status: result.statusCode ?? 200,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
    ),
  });
}
