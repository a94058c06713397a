import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { type AssetManifest, ensureWebAuthenticator, webAuthenticatorOutput } from '#web/authenticator/build';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The web authenticator over real HTTP from the local runtime, as a browser gets it. */

let service: TestRuntime;
let manifest: AssetManifest;

beforeAll(async () => {
  await ensureWebAuthenticator();
  manifest = JSON.parse(readFileSync(join(webAuthenticatorOutput, 'assets.json'), 'utf8')) as AssetManifest;
  service = await startTestRuntime();
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A GET with the path exactly as written: fetch would resolve `..` and `%2e%2e` before sending. */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(service.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ hostname, port, path, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const strictPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "worker-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
  "object-src 'none'";

function expectSecurityHeaders(response: RawResponse): void {
  expect(response.headers['content-security-policy']).toBe(strictPolicy);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['permissions-policy']).toContain('publickey-credentials-get=(self)');
}

const hashedAsset = (extension: string) =>
  Object.keys(manifest.files).find(
    (name) => name.endsWith(extension) && manifest.files[name]?.cache === 'immutable',
  ) ?? '';

describe('GET /authenticator/', () => {
  it('serves the page, never cached without asking, under the strict Content-Security-Policy', async () => {
    const response = await rawGet('/authenticator/');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expectSecurityHeaders(response);
    const html = response.body.toString('utf8');
    expect(html).toContain('<title>Web authenticator</title>');
    expect(html).toContain(`src="./${hashedAsset('.js')}"`);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=/);
  });

  it('answers 304 to a browser that has the page, with the same headers and no body', async () => {
    const first = await rawGet('/authenticator/');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await rawGet('/authenticator/', { 'if-none-match': `W/"other", ${etag}` });
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);
    expect(again.headers.etag).toBe(etag);
    expectSecurityHeaders(again);
    expect((await rawGet('/authenticator/', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('redirects /authenticator to the directory, keeping the query', async () => {
    const response = await fetch(`${service.baseUrl}/authenticator?x=1`, { redirect: 'manual' });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('/authenticator/?x=1');
    expect(response.headers.get('content-security-policy')).toBe(strictPolicy);
  });
});

describe('the built files', () => {
  it('serves a hashed script for good, and gzipped to a browser that takes it', async () => {
    const name = hashedAsset('.js');
    const plain = await rawGet(`/authenticator/${name}`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.body).toHaveLength(manifest.files[name]?.bytes ?? -1);
    expectSecurityHeaders(plain);
    const gzipped = await rawGet(`/authenticator/${name}`, { 'accept-encoding': 'br, gzip;q=0.8' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('Accept-Encoding');
    const { gunzipSync } = await import('node:zlib');
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    const cached = await rawGet(`/authenticator/${name}`, { 'if-none-match': String(plain.headers.etag) });
    expect(cached.status).toBe(304);
  });

  it('serves an icon as a PNG', async () => {
    const response = await rawGet(`/authenticator/${hashedAsset('.png')}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.body.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('serves the service worker under a stable name, allowed to control the directory', async () => {
    const response = await rawGet('/authenticator/sw.js');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['service-worker-allowed']).toBe('/authenticator/');
    expectSecurityHeaders(response);
    expect(response.body.toString('utf8')).toContain(hashedAsset('.js'));
  });

  it('serves the web app manifest, whose icons are served too', async () => {
    const response = await rawGet('/authenticator/manifest.webmanifest');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    const webManifest = JSON.parse(response.body.toString('utf8')) as {
      start_url: string;
      scope: string;
      display: string;
      icons: { src: string; sizes: string; purpose: string }[];
    };
    expect(
      new URL(webManifest.start_url, `${service.baseUrl}/authenticator/manifest.webmanifest`).pathname,
    ).toBe('/authenticator/');
    expect(new URL(webManifest.scope, `${service.baseUrl}/authenticator/manifest.webmanifest`).pathname).toBe(
      '/authenticator/',
    );
    expect(webManifest.display).toBe('standalone');
    expect(webManifest.icons.map((icon) => `${icon.sizes} ${icon.purpose}`).sort()).toEqual([
      '192x192 any',
      '512x512 any',
      '512x512 maskable',
    ]);
    for (const icon of webManifest.icons) {
      expect((await rawGet(`/authenticator/${icon.src.replace('./', '')}`)).status).toBe(200);
    }
  });
});

describe('anything else under /authenticator/', () => {
  it.each([
    '/authenticator/../api-keys.json',
    '/authenticator/%2e%2e/api-keys.json',
    '/authenticator/%2E%2E%2Fapi-keys.json',
    '/authenticator/..%2f..%2fpackage.json',
    '/authenticator//etc/passwd',
    '/authenticator//',
    '/authenticator/assets.json',
    '/authenticator/.',
    '/authenticator/./index.html',
    '/authenticator/index.html/',
    '/authenticator/__proto__',
    '/authenticator/constructor',
    '/authenticator/unknown.js',
  ])('%s is 404, with the same security headers', async (path) => {
    const response = await rawGet(path);
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expectSecurityHeaders(response);
  });
});
