import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { lambdaContext } from '#infra/local/lambda-context';
import { routeId } from '#infra/routes';
import type { PreparedRequest } from '#shared/client/api-client';
import type { HttpEvent } from '#shared/http/event';
import { toHttpEvent, toResponse } from '#test/support/events';

export type RoutedRequest = Pick<PreparedRequest, 'method' | 'path' | 'headers' | 'body'>;

/** A request as its route table row receives it: the API Gateway event, and the call of its handler. */
export interface Routed {
  readonly routeKey: string;
  readonly event: HttpEvent;
  invoke(): Promise<APIGatewayProxyStructuredResultV2>;
}

export interface RouteTable {
  route(request: RoutedRequest): Routed;
  /** A fetch that hands each request to its handler, as the local runtime's HTTP server does but without HTTP. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

/** Every handler of the route table, loaded once in this process as the local runtime loads them. */
export async function loadRouteTable(): Promise<RouteTable> {
  const { loadRoutes, matchRoute } = await import('#infra/local/http-server');
  const { routes } = await loadRoutes();
  const route = (request: RoutedRequest): Routed => {
    const method = request.method.toUpperCase();
    const queryAt = request.path.indexOf('?');
    const rawPath = queryAt === -1 ? request.path : request.path.slice(0, queryAt);
    const matched = matchRoute(routes, method, rawPath);
    if (!matched) throw new Error(`no route for ${method} ${rawPath}`);
    const { loaded, parameters } = matched;
    const routeKey = `${method} ${loaded.route.path}`;
    const event = {
      ...toHttpEvent({ ...request, method, jti: '', subject: '' }),
      routeKey,
      pathParameters: parameters,
    };
    return {
      routeKey,
      event,
      invoke: () => loaded.handler(event, lambdaContext(routeId(loaded.route), 10_000)),
    };
  };
  return {
    route,
    async fetch(input, init) {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const text = await request.text();
      const routed = route({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body: text === '' ? undefined : text,
      });
      return toResponse(await routed.invoke());
    },
  };
}

/**
 * A fetch for clients that sign requests they do not send themselves: it answers the clock and the API's current key
 * from this process (one machine, one clock), so that thousands of device clients never ask the service, and hands
 * every other request to `transport`.
 */
export async function withLocalApiKey(
  baseUrl: string,
  transport: typeof globalThis.fetch,
): Promise<typeof globalThis.fetch> {
  const response = await transport(`${baseUrl}/public/v3/public-key`);
  if (!response.ok) throw new Error(`GET /public/v3/public-key answered ${response.status}`);
  const pem = await response.text();
  const kid = response.headers.get('x-iov-key-id') ?? '';
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.endsWith('/public/v3/ping')) return Response.json({ api_time: new Date().toISOString() });
    if (url.endsWith('/public/v3/public-key')) return new Response(pem, { headers: { 'x-iov-key-id': kid } });
    return transport(input, init);
  };
}
