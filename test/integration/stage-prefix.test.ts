import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpFunction, LoadedRoute } from '#infra/local/http-server';
import { lambdaContext } from '#infra/local/lambda-context';
import type { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import type { HttpEvent } from '#shared/http/event';
import { toResponse } from '#test/support/events';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * A stack deployed with `-c stageName=prod` serves at `https://<api>.execute-api.<region>.amazonaws.com/prod`, its
 * BaseUrl output. API Gateway picks the route by the path after the stage but hands the function a `rawPath` that
 * still starts with `/prod`, while an SDK given that base URL signs only the path it appends to it.
 */
const stage = 'prod';
const endpoint = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com';
const customDomain = 'https://mfa.example.com';

let service: TestRuntime;
let routes: LoadedRoute[];
let fallback: HttpFunction;
let matchRoute: typeof import('#infra/local/http-server').matchRoute;

beforeAll(async () => {
  service = await startTestRuntime();
  // The handlers read the store's configuration when they load: only once the runtime has set it.
  const httpServer = await import('#infra/local/http-server');
  ({ routes, fallback } = await httpServer.loadRoutes());
  matchRoute = httpServer.matchRoute;
});
afterAll(async () => {
  await service?.stop();
});

/**
 * What API Gateway does with a request under the named stage: through the API's own endpoint the stage is the first
 * path segment and stays in `rawPath`; through a custom domain mapped to the stage, the path carries none.
 */
function gateway(through: 'endpoint' | 'custom domain'): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? 'GET').toUpperCase();
    const rawPath = url.pathname;
    let routePath = rawPath;
    if (through === 'endpoint') {
      if (!rawPath.startsWith(`/${stage}/`)) {
        return Response.json({ message: 'Not Found' }, { status: 404 });
      }
      routePath = rawPath.slice(stage.length + 1);
    }
    const matched = matchRoute(routes, method, routePath);
    const headers: Record<string, string> = { host: url.host, 'x-forwarded-proto': 'https' };
    for (const [name, value] of new Headers(init.headers)) headers[name] = value;
    const body = typeof init.body === 'string' ? init.body : undefined;
    const routeKey = matched ? `${method} ${matched.loaded.route.path}` : '$default';
    const event: HttpEvent = {
      version: '2.0',
      routeKey,
      rawPath,
      rawQueryString: url.search.slice(1),
      headers,
      ...(matched ? { pathParameters: matched.parameters } : {}),
      requestContext: {
        accountId: '123456789012',
        apiId: 'a1b2c3d4e5',
        domainName: url.hostname,
        domainPrefix: url.hostname.split('.')[0] ?? url.hostname,
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
        requestId: crypto.randomUUID(),
        routeKey,
        stage,
        time: new Date().toUTCString(),
        timeEpoch: Date.now(),
      },
      ...(body === undefined
        ? { isBase64Encoded: false }
        : { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }),
    };
    const handler = matched?.loaded.handler ?? fallback;
    return toResponse(await handler(event, lambdaContext('test', 10_000)));
  };
}

/** A client of the demo organization, configured as an SDK would be with the deployed base URL. */
const clientAt = (baseUrl: string, through: 'endpoint' | 'custom domain'): ApiClient =>
  service.client({ baseUrl, fetch: gateway(through) });

async function refusalOf(promise: Promise<unknown>): Promise<{ status: number; code: unknown }> {
  const error = await promise.then(
    () => expect.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiRequestError)) throw error;
  return { status: error.status, code: error.errorCode };
}

describe('a named stage reached at the API’s own endpoint', () => {
  const baseUrl = `${endpoint}/${stage}`;

  it('accepts requests signed without the stage, as the SDKs sign them, with and without a body', async () => {
    const client = clientAt(baseUrl, 'endpoint');
    const createdService = await client.call<{ id: string }>('POST', '/organization/v3/services', {
      body: { name: 'Staged' },
    });
    expect(createdService.status).toBe(201);

    const listed = await client.call<{ id: string; icon: string }[]>('GET', '/organization/v3/services');
    expect(listed.status).toBe(200);
    const staged = listed.body?.find((item) => item.id === createdService.body?.id);
    // Links the API hands out keep the stage, or they would lead nowhere.
    expect(staged?.icon).toBe(`${baseUrl}/public/v3/icons/service.svg`);
  });

  it('still refuses a request signed for another path with AUTH-005', async () => {
    const client = clientAt(baseUrl, 'endpoint');
    const prepared = await client.prepare('GET', '/organization/v3/directories');
    const delivered = { ...prepared, path: '/organization/v3/services' };
    const response = await client.send(delivered);
    expect(await refusalOf(client.verifyResponse(delivered, response))).toEqual({
      status: 401,
      code: 'AUTH-005',
    });
  });

  it('refuses a signature over the path with the stage in it: the stage belongs to the base URL', async () => {
    const client = clientAt(baseUrl, 'endpoint');
    const prepared = await client.prepare('GET', `/${stage}/organization/v3/services`);
    const delivered = { ...prepared, path: '/organization/v3/services' };
    const response = await client.send(delivered);
    expect(await refusalOf(client.verifyResponse(delivered, response))).toEqual({
      status: 401,
      code: 'AUTH-005',
    });
  });
  it('answers an unknown operation under a signed prefix with a signed ARG-002, as without a stage', async () => {
    const client = clientAt(baseUrl, 'endpoint');
    expect(await refusalOf(client.call('POST', '/organization/v3/nope', { body: {} }))).toEqual({
      status: 400,
      code: 'ARG-002',
    });
  });
});

describe('a named stage reached through a custom domain', () => {
  it('takes the path as it came, since the domain mapping puts no stage in it', async () => {
    const client = clientAt(customDomain, 'custom domain');
    const createdService = await client.call<{ id: string }>('POST', '/organization/v3/services', {
      body: { name: 'Domained' },
    });
    expect(createdService.status).toBe(201);
    const listed = await client.call<{ id: string; icon: string }[]>('GET', '/organization/v3/services');
    const domained = listed.body?.find((item) => item.id === createdService.body?.id);
    expect(domained?.icon).toBe(`${customDomain}/public/v3/icons/service.svg`);
  });
});
