import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyId } from '#shared/protocol/kid';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;

beforeAll(async () => {
  service = await startTestRuntime();
});
afterAll(async () => {
  await service?.stop();
});

describe('GET /public/v3/ping', () => {
  it('answers plain JSON with api_time in UTC to the second, without any auth', async () => {
    const before = Date.now();
    const response = await fetch(`${service.baseUrl}/public/v3/ping`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { api_time: string };
    expect(Object.keys(body)).toEqual(['api_time']);
    expect(body.api_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Math.abs(Date.parse(body.api_time) - before)).toBeLessThan(5_000);
  });
});

describe('GET /public/v3/public-key', () => {
  it('answers the current key as raw SPKI PEM with its kid in both dialects’ headers', async () => {
    const response = await fetch(`${service.baseUrl}/public/v3/public-key`);
    expect(response.status).toBe(200);
    const pem = await response.text();
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    const kid = keyId(createPublicKey(pem));
    expect(response.headers.get('x-iov-key-id')).toBe(kid);
    expect(response.headers.get('x-api-key-id')).toBe(kid);
    expect(response.headers.get('cache-control')).toBeNull();
  });

  it('answers a key by its kid, colons unescaped in the path', async () => {
    const current = await fetch(`${service.baseUrl}/public/v3/public-key`);
    const kid = current.headers.get('x-iov-key-id') as string;
    const byKid = await fetch(`${service.baseUrl}/public/v3/public-key/${kid}`);
    expect(byKid.status).toBe(200);
    expect(await byKid.text()).toBe(await current.text());
    expect(byKid.headers.get('x-iov-key-id')).toBe(kid);
  });

  it('answers 404 for an unknown kid', async () => {
    const response = await fetch(
      `${service.baseUrl}/public/v3/public-key/00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff`,
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error_code: 'HTTP-404' });
  });
});

describe('unknown paths outside the signed prefixes', () => {
  it.each(['/', '/public/v3/nope', '/v2/anything'])('%s is a plain 404', async (path) => {
    const response = await fetch(`${service.baseUrl}${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error_code: 'HTTP-404' });
  });

  it('a public path with the wrong method is a plain 404', async () => {
    const response = await fetch(`${service.baseUrl}/public/v3/ping`, { method: 'POST' });
    expect(response.status).toBe(404);
  });
});
