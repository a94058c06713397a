import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { lambdaContext } from '#infra/local/lambda-context';
import {
  type Access,
  consoleAuditRoute,
  consoleRoute,
  fallbackRoute,
  type HttpRoute,
  httpRoutes,
  type ProxyRoute,
  routeId,
  webAppRoute,
} from '#infra/routes';
import { type HttpEvent, maxRequestBodyBytes } from '#shared/http/event';
import { withTableGrant } from '#shared/store/table-grant-check';

export type HttpFunction = (event: HttpEvent, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** A route as API Gateway matches it: its method and path template, compiled. */
export interface RoutePattern {
  readonly route: { readonly method: string; readonly path: string };
  readonly pattern: RegExp;
  readonly parameterNames: readonly string[];
}

export interface LoadedRoute extends RoutePattern {
  readonly route: HttpRoute | ProxyRoute;
  readonly handler: HttpFunction;
}

/** Where the gateway hands a request: a function, however it runs. A thrown error is the gateway's own 500. */
export interface GatewayTarget {
  readonly functionName: string;
  invoke(event: HttpEvent, requestId: string): Promise<APIGatewayProxyStructuredResultV2>;
}

export interface GatewayRoute extends RoutePattern {
  readonly target: GatewayTarget;
}

/** Every route of the API, and the function of `$default`. */
export interface Routing {
  readonly routes: readonly GatewayRoute[];
  readonly fallback: GatewayTarget;
}

/**
 * What reaches API Gateway when something stands in front of it (CloudFront): sets the headers it forwards and says
 * which address API Gateway sees; undefined when the client reaches API Gateway directly.
 */
export type Forwarding = (
  request: IncomingMessage,
  headers: Record<string, string>,
) => { sourceIp: string } | undefined;

export interface GatewayOptions {
  readonly port: number;
  readonly host: string;
  /** Read for each request: undefined while the API is still being deployed, and API Gateway answers 503. */
  readonly routing: () => Routing | undefined;
  /** Absent: clients reach API Gateway directly. */
  readonly forwarding?: Forwarding;
  /** The API's id and domain in the request context (default: `local`, and the Host header). */
  readonly api?: { readonly id: string; readonly domainName: string };
}

const functionTimeoutMs = 10_000;
/** HTTP APIs pass these bodies as text and base64-encode everything else. */
const textContentType = /^(text\/|application\/(json|xml|javascript)|[^;]*\+(json|xml))/i;

async function loadHandler(module: string): Promise<HttpFunction> {
  const specifier = `#functions/${module}`;
  const loaded = (await import(/* @vite-ignore */ specifier)) as { handler?: HttpFunction };
  if (typeof loaded.handler !== 'function') throw new Error(`functions/${module}.ts exports no handler`);
  return loaded.handler;
}

/** A route's pattern as API Gateway matches it; `trailingSlash` also takes `/x/` for `/x`, as a page's path does. */
export function compileRoute<Route extends { readonly method: string; readonly path: string }>(
  route: Route,
  trailingSlash = false,
): { route: Route; pattern: RegExp; parameterNames: string[] } {
  const parameterNames: string[] = [];
  const source = route.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    // `{name+}` is greedy, as in API Gateway: the rest of the path, slashes included.
    .replace(/\{(\w+)(\\\+)?\}/g, (_, name: string, greedy?: string) => {
      parameterNames.push(name);
      return greedy ? '(.+)' : '([^/]+)';
    });
  return { route, pattern: new RegExp(`^${source}${trailingSlash ? '/?' : ''}$`), parameterNames };
}

/** Imports every handler of the route table once, as each Lambda would at cold start. */
export async function loadRoutes(): Promise<{ routes: LoadedRoute[]; fallback: HttpFunction }> {
  const modules = new Map<string, Promise<HttpFunction>>();
  const handlerOf = (module: string) => {
    if (!modules.has(module)) modules.set(module, loadHandler(module));
    return modules.get(module) as Promise<HttpFunction>;
  };
  const webAppRows = webAppRoute.paths.map((path): HttpRoute => ({
    method: 'GET',
    path,
    handler: webAppRoute.handler,
    access: webAppRoute.access,
  }));
  const webAppPaths = new Set(webAppRoute.paths);
  const routes = await Promise.all(
    // The audit trail's route first: API Gateway prefers it, the more specific, to the console's.
    [...httpRoutes, ...webAppRows, consoleAuditRoute, consoleRoute].map(async (route) => ({
      // API Gateway sends `/x/` to the route `/x`; the web app's page lives at such a path.
      ...compileRoute(route, webAppPaths.has(route.path)),
      handler: await handlerOf(route.handler),
    })),
  );
  return { routes, fallback: await handlerOf(fallbackRoute.handler) };
}

/**
 * The route a request goes to, as API Gateway picks it, with its path parameters decoded. A parameter that is not
 * valid percent-encoding is handed over as it arrived, for the handler to refuse like any other unknown id.
 */
export function matchRoute<Route extends RoutePattern>(
  routes: readonly Route[],
  method: string,
  rawPath: string,
): { loaded: Route; parameters: Record<string, string> } | undefined {
  for (const loaded of routes) {
    // `ANY` takes every method, as in API Gateway, where a route of the same path with the method named wins.
    if (loaded.route.method !== method && loaded.route.method !== 'ANY') continue;
    const match = loaded.pattern.exec(rawPath);
    if (!match) continue;
    const parameters: Record<string, string> = {};
    loaded.parameterNames.forEach((name, index) => {
      parameters[name] = decodedParameter(match[index + 1] ?? '');
    });
    return { loaded, parameters };
  }
  return undefined;
}

function decodedParameter(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The local runtime's API: the route table's handlers, run in this process, each within its table grant. */
export async function startHttpServer(options: {
  port: number;
  host: string;
}): Promise<{ server: Server; url: string }> {
  const { routes, fallback } = await loadRoutes();
  // The row's grant is read on each request: a test may declare another.
  const inProcess = (
    functionName: string,
    handler: HttpFunction,
    row: { access: Access },
  ): GatewayTarget => ({
    functionName,
    invoke: (event, requestId) =>
      withTableGrant(functionName, row.access.table, () =>
        handler(event, lambdaContext(functionName, functionTimeoutMs, requestId)),
      ),
  });
  const routing: Routing = {
    routes: routes.map((loaded) => ({
      ...loaded,
      target: inProcess(routeId(loaded.route), loaded.handler, loaded.route),
    })),
    fallback: inProcess('Fallback', fallback, fallbackRoute),
  };
  return startGateway({ ...options, routing: () => routing });
}

/** An HTTP server that does what API Gateway (and, when `forwarding` says so, CloudFront) does in front of functions. */
export async function startGateway(options: GatewayOptions): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    serve(request, response, options).catch((error: unknown) => {
      console.error('Local HTTP runtime failure', error);
      if (!response.headersSent) respond(response, 500, { message: 'Internal Server Error' });
      else response.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `http://${host}:${port}` };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: GatewayOptions,
): Promise<void> {
  const routing = options.routing();
  if (!routing) return respond(response, 503, { message: 'Service Unavailable' });
  const body = await readBody(request);
  if (body === undefined) {
    // The gateway's refusal, in the shape of every other error of this API.
    return respond(response, 413, {
      error_code: 'HTTP-413',
      error_detail: `The request body is larger than ${maxRequestBodyBytes} bytes`,
    });
  }
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const method = (request.method ?? 'GET').toUpperCase();

  const matched = matchRoute(routing.routes, method, rawPath);
  const requestId = randomUUID();
  const routeKey = matched ? `${method} ${matched.loaded.route.path}` : '$default';
  const event = toEvent(request, options, {
    method,
    rawPath,
    rawQueryString,
    body,
    requestId,
    routeKey,
    parameters: matched?.parameters,
  });
  const target = matched?.loaded.target ?? routing.fallback;
  let result: APIGatewayProxyStructuredResultV2;
  try {
    result = await target.invoke(event, requestId);
  } catch (error) {
    console.error(`${target.functionName} failed`, error);
    return respond(response, 500, { message: 'Internal Server Error' }, requestId);
  }
  const headers: Record<string, string | string[]> = { 'apigw-requestid': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  // Payload 2.0 answers cookies apart from the headers, one Set-Cookie each.
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const payload = result.body
    ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  if (!headers['content-type'] && payload.length > 0) headers['content-type'] = 'application/json';
  headers['content-length'] = String(payload.length);
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(payload);
}

function toEvent(
  request: IncomingMessage,
  options: GatewayOptions,
  parts: {
    method: string;
    rawPath: string;
    rawQueryString: string;
    body: Buffer;
    requestId: string;
    routeKey: string;
    parameters: Record<string, string> | undefined;
  },
): HttpEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // Payload 2.0 hands cookies over apart from the headers, one entry each.
  const cookies = headers.cookie?.split(/;\s*/).filter((cookie) => cookie !== '');
  delete headers.cookie;
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(parts.rawQueryString)) {
    queryStringParameters[name] =
      queryStringParameters[name] === undefined ? value : `${queryStringParameters[name]},${value}`;
  }
  let sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
  const forwarded = options.forwarding?.(request, headers);
  if (forwarded) {
    ({ sourceIp } = forwarded);
  } else {
    // API Gateway tells the function how the client reached it.
    headers['x-forwarded-proto'] = 'http';
    headers['x-forwarded-for'] = sourceIp;
    headers['x-forwarded-port'] = String(request.socket.localPort ?? '');
  }
  const isText = textContentType.test(headers['content-type'] ?? '');
  const now = new Date();
  const domainName = options.api?.domainName ?? headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: parts.routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    headers,
    ...(cookies?.length ? { cookies } : {}),
    ...(parts.rawQueryString ? { queryStringParameters } : {}),
    ...(parts.parameters ? { pathParameters: parts.parameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: options.api?.id ?? 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? 'localhost',
      http: {
        method: parts.method,
        path: parts.rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: parts.requestId,
      routeKey: parts.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(parts.body.length > 0
      ? { body: parts.body.toString(isText ? 'utf8' : 'base64'), isBase64Encoded: !isText }
      : { isBase64Encoded: false }),
  };
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxRequestBodyBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function respond(response: ServerResponse, status: number, body: unknown, requestId = randomUUID()): void {
  response.writeHead(status, { 'content-type': 'application/json', 'apigw-requestid': requestId });
  response.end(JSON.stringify(body));
}
