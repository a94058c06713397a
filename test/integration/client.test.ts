import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRequestError, ResponseVerificationError } from '#shared/client/errors';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;

beforeAll(async () => {
  service = await startTestRuntime();
});
afterAll(async () => {
  await service?.stop();
});

describe('the TypeScript client against the local runtime', () => {
  describe.each(['iov', 'api'] as const)('in the %s dialect', (dialect) => {
    it.each(['RS256', 'RS384', 'RS512'] as const)(
      'signs with %s and reads a bodyless answer',
      async (signatureAlgorithm) => {
        const response = await service
          .client({ dialect, signatureAlgorithm })
          .call('GET', '/organization/v3/directories');
        expect(response).toMatchObject({ status: 200, body: [] });
        expect(response.headers.get(dialect === 'iov' ? 'x-iov-jwt' : 'x-api-jwt')).toBeTruthy();
      },
    );

    it.each([
      ['RSA-OAEP', 'S256'],
      ['RSA-OAEP', 'S384'],
      ['RSA-OAEP-256', 'S512'],
      ['RSA-OAEP-256', 'S256'],
    ] as const)('encrypts the body with %s, hashes it with %s', async (encryptionAlgorithm, hashFunction) => {
      const client = service.client({ dialect, encryptionAlgorithm, hashFunction });
      const response = await client.call('POST', '/organization/v3/directories/list', {
        body: { directory_ids: [] },
      });
      expect(response).toMatchObject({ status: 200, body: [] });
    });
  });

  it('throws typed errors carrying the catalogue code', async () => {
    const error = await service
      .client()
      .call('GET', '/organization/v3/no-such-thing')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({ status: 400, errorCode: 'ARG-002' });
  });

  it('stamps its requests with the server clock from /public/v3/ping', async () => {
    const now = await service.client().serverNow();
    expect(Math.abs(now - Date.now() / 1000)).toBeLessThan(3);
  });
});

/** A client whose fetch lets a test change what comes back from the service. */
function tamperedClient(tamper: (response: Response, url: string) => Promise<Response>) {
  return service.client({
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      return tamper(
        response,
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      );
    },
  });
}

async function verificationFailure(promise: Promise<unknown>): Promise<ResponseVerificationError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ResponseVerificationError);
  return error as ResponseVerificationError;
}

const isSignedCall = (url: string) => url.includes('/organization/');

describe('the client refuses answers it cannot trust', () => {
  it('a changed body', async () => {
    const client = tamperedClient(async (response, url) => {
      if (!isSignedCall(url)) return response;
      const text = await response.text();
      const flipped = `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.at(-1)}`;
      return new Response(flipped, { status: response.status, headers: response.headers });
    });
    const error = await verificationFailure(
      client.call('POST', '/organization/v3/directories/list', { body: { directory_ids: [] } }),
    );
    expect(error.reason).toBe('binding');
  });

  it('a missing JWT header', async () => {
    const client = tamperedClient(async (response, url) => {
      if (!isSignedCall(url)) return response;
      const headers = new Headers(response.headers);
      headers.delete('x-iov-jwt');
      return new Response(await response.text(), { status: response.status, headers });
    });
    expect((await verificationFailure(client.call('GET', '/organization/v3/directories'))).reason).toBe(
      'missing-jwt',
    );
  });

  it('a changed status', async () => {
    const client = tamperedClient(async (response, url) =>
      isSignedCall(url)
        ? new Response(await response.text(), { status: 201, headers: response.headers })
        : response,
    );
    expect((await verificationFailure(client.call('GET', '/organization/v3/directories'))).reason).toBe(
      'binding',
    );
  });

  it('a Cache-Control header the JWT does not mirror', async () => {
    const client = tamperedClient(async (response, url) => {
      if (!isSignedCall(url)) return response;
      const headers = new Headers(response.headers);
      headers.set('cache-control', 'max-age=60');
      return new Response(await response.text(), { status: response.status, headers });
    });
    expect((await verificationFailure(client.call('GET', '/organization/v3/directories'))).reason).toBe(
      'binding',
    );
  });

  it('the JWT of another exchange', async () => {
    let captured: string | undefined;
    const client = tamperedClient(async (response, url) => {
      if (!isSignedCall(url)) return response;
      const headers = new Headers(response.headers);
      if (captured) headers.set('x-iov-jwt', captured);
      else captured = headers.get('x-iov-jwt') ?? undefined;
      return new Response(await response.text(), { status: response.status, headers });
    });
    await client.call('GET', '/organization/v3/directories');
    expect((await verificationFailure(client.call('GET', '/organization/v3/directories'))).reason).toBe(
      'claims',
    );
  });

  it('an API public key whose kid header names another key', async () => {
    const client = tamperedClient(async (response, url) => {
      if (!url.includes('/public/v3/public-key')) return response;
      const headers = new Headers(response.headers);
      headers.set('x-iov-key-id', '00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00');
      return new Response(await response.text(), { status: response.status, headers });
    });
    expect((await verificationFailure(client.currentApiKey())).reason).toBe('api-key');
  });

  it('an answer encrypted to a key it does not hold (single-purpose keys feature)', async () => {
    const { putOrganization } = await import('#shared/store/organizations');
    const { addEntityKey } = await import('#shared/use-cases/entity-keys');
    const id = randomUUID();
    const signature = rsaKeyPair();
    const encryption = rsaKeyPair();
    await putOrganization({ id, name: 'Single purpose', created: '2026-11-22T00:00:00Z' });
    await addEntityKey({ type: 'org', id }, { publicKeyPem: signature.publicPem, keyType: 2 });
    await addEntityKey({ type: 'org', id }, { publicKeyPem: encryption.publicPem, keyType: 1 });
    const signingOnly = service.client({ issuer: `org:${id}`, privateKeyPem: signature.privatePem });
    expect((await verificationFailure(signingOnly.call('GET', '/organization/v3/directories'))).reason).toBe(
      'unknown-key',
    );
    const holdingBoth = service.client({
      issuer: `org:${id}`,
      privateKeyPem: signature.privatePem,
      decryptionKeyPems: [encryption.privatePem],
    });
    expect(await holdingBoth.call('GET', '/organization/v3/directories')).toMatchObject({
      status: 200,
      body: [],
    });
  });
});
