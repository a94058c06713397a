import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '#infra/local/lambda-context';
import { ApiRequestError } from '#shared/client/errors';
import type { SignedContext } from '#shared/http/signed-state';
import { toHttpEvent, toResponse } from '#test/support/events';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;
let signedHandler: typeof import('#shared/http/signed-handler').signedHandler;
let errors: typeof import('#shared/errors');

beforeAll(async () => {
  service = await startTestRuntime();
  ({ signedHandler } = await import('#shared/http/signed-handler'));
  errors = await import('#shared/errors');
});
afterAll(async () => {
  await service?.stop();
});

/** Runs a handler built on the shared pipeline in-process, for a request the demo organization signed. */
async function invoke(
  handler: ReturnType<typeof signedHandler>,
  method = 'GET',
  path = '/organization/v3/anything',
) {
  const client = service.client();
  const prepared = await client.prepare(method, path);
  const result = await handler(toHttpEvent(prepared), lambdaContext('test', 10_000) as SignedContext);
  const response = toResponse(result);
  const outcome = await client.verifyResponse(prepared, response.clone()).catch((error: unknown) => error);
  return { response, outcome };
}

describe('failures inside a use case', () => {
  it('an unexpected error is a 500 whose JWT still verifies, with a generic plain JSON body', async () => {
    const handler = signedHandler({
      subject: 'org',
      body: 'none',
      handle: async () => {
        throw new Error('database password is hunter2');
      },
    });
    const { response, outcome } = await invoke(handler);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toEqual({ error_code: 'HTTP-500', error_detail: 'Internal error' });
    expect(outcome).toBeInstanceOf(ApiRequestError);
    expect(outcome).toMatchObject({ status: 500, errorCode: 'HTTP-500' });
  });

  it('a store outage reported as 503 keeps its status and code', async () => {
    const handler = signedHandler({
      subject: 'org',
      body: 'none',
      handle: async () => {
        throw errors.serviceUnavailable('The store is unavailable; retry the request');
      },
    });
    const { response, outcome } = await invoke(handler);
    expect(response.status).toBe(503);
    expect(outcome).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
  });

  it('a catalogue error keeps its code, data and encryption', async () => {
    const handler = signedHandler({
      subject: 'org',
      body: 'none',
      handle: async () => {
        throw new errors.ApiError('SVC-005', 'busy for 30 more seconds', { data: { auth_request: 'x' } });
      },
    });
    const { response, outcome } = await invoke(handler);
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toBe('application/jose');
    expect(outcome).toMatchObject({ status: 409, errorCode: 'SVC-005', errorData: { auth_request: 'x' } });
  });

  it('a reply with Location and Cache-Control mirrors both into the JWT', async () => {
    const handler = signedHandler({
      subject: 'org',
      body: 'none',
      handle: async () => ({
        status: 201,
        body: { id: 'x' },
        headers: { location: '/x', 'cache-control': 'no-store' },
      }),
    });
    const { response, outcome } = await invoke(handler);
    expect(response.headers.get('location')).toBe('/x');
    expect(outcome).toMatchObject({ status: 201, body: { id: 'x' } });
  });
});
