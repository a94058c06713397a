import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originSecretsVariable, originVerifyHeader } from '#shared/http/middlewares/edge-origin';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * Behind CloudFront the API's own endpoint stays reachable, so the functions refuse whatever did not come through
 * CloudFront, which adds the origin secret to every request it forwards. The local runtime hands the handlers the
 * environment of this process: setting the variable here is what the stack does in AWS.
 */
const current = 'edge-secret-current-0123456789abcdef';
const next = 'edge-secret-next-fedcba9876543210';

let service: TestRuntime;

beforeAll(async () => {
  service = await startTestRuntime();
  process.env[originSecretsVariable] = `${current} ${next}`;
});
afterAll(async () => {
  delete process.env[originSecretsVariable];
  await service?.stop();
});

const withSecret = (secret: string): typeof fetch => {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set(originVerifyHeader, secret);
    return fetch(input, { ...init, headers });
  };
};

describe('the origin check behind CloudFront', () => {
  it('refuses an unsigned route without the header, or with a wrong value, before anything else runs', async () => {
    for (const headers of [
      {},
      { [originVerifyHeader]: 'guess' },
      { [originVerifyHeader]: `${current}x` },
    ] as Record<string, string>[]) {
      const response = await fetch(`${service.baseUrl}/public/v3/ping`, { headers });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({
        error_code: 'HTTP-403',
        error_detail: 'Requests must come through the edge',
      });
    }
  });

  it('refuses a signed route without the header with a plain 403, not a signed 401', async () => {
    const response = await fetch(`${service.baseUrl}/organization/v3/directories`);
    expect(response.status).toBe(403);
    expect(response.headers.get('x-iov-jwt')).toBeNull();
    expect(await response.json()).toMatchObject({ error_code: 'HTTP-403' });
  });

  it('refuses the web authenticator and unknown paths without the header', async () => {
    for (const path of ['/authenticator/', '/no/such/path']) {
      expect((await fetch(`${service.baseUrl}${path}`)).status).toBe(403);
    }
  });

  it('passes requests that carry either accepted value through to the pipeline', async () => {
    for (const secret of [current, next]) {
      const ping = await withSecret(secret)(`${service.baseUrl}/public/v3/ping`);
      expect(ping.status).toBe(200);
      // Past the check, an unsigned request to a signed route meets authentication: a signed 401.
      const unsigned = await withSecret(secret)(`${service.baseUrl}/organization/v3/directories`);
      expect(unsigned.status).toBe(401);
      expect(unsigned.headers.get('x-iov-jwt')).toBeTruthy();
    }
    const client = service.client({ fetch: withSecret(current) });
    const { status, body } = await client.call('GET', '/organization/v3/directories');
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
  });
});
