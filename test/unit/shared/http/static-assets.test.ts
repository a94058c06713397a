import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpEvent } from '#shared/http/event';
import { loadStaticSite, serveStatic, type StaticSite, staticSiteLoader } from '#shared/http/static-assets';

/** The static file server's answers that the local runtime's default stage does not show. */

let directory: string;
let site: StaticSite | undefined;

const sha256 = async (text: string) =>
  (await import('node:crypto')).createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'static-site-'));
  await writeFile(join(directory, 'sw.js'), 'self.x = 1;\n');
  await writeFile(
    join(directory, 'assets.json'),
    JSON.stringify({
      files: {
        'sw.js': {
          type: 'text/javascript; charset=utf-8',
          cache: 'no-cache',
          sha256: await sha256('self.x = 1;\n'),
        },
      },
    }),
  );
  site = await loadStaticSite(directory);
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function event(rawPath: string, stage = '$default'): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'GET /authenticator/{proxy+}',
    rawPath,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { stage, http: { method: 'GET', path: rawPath } },
  } as unknown as HttpEvent;
}

describe('the static file server', () => {
  it('lets the service worker control its directory under a named stage, and redirects there', () => {
    const worker = serveStatic(site, event('/prod/authenticator/sw.js', 'prod'), '/authenticator');
    expect(worker.status).toBe(200);
    expect(worker.headers?.['service-worker-allowed']).toBe('/prod/authenticator/');
    const redirect = serveStatic(site, event('/prod/authenticator', 'prod'), '/authenticator');
    expect(redirect.status).toBe(308);
    expect(redirect.headers?.location).toBe('/prod/authenticator/');
  });

  it('says the app is not built rather than answering an empty page', () => {
    const reply = serveStatic(undefined, event('/authenticator/'), '/authenticator');
    expect(reply.status).toBe(503);
    expect(reply.body).toContain('npm run build:web');
    expect(reply.headers?.['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('refuses a build whose file is not the one listed', async () => {
    await writeFile(join(directory, 'sw.js'), 'self.x = 2;\n');
    await expect(loadStaticSite(directory)).rejects.toThrow(/not the file the build made/);
    await writeFile(join(directory, 'sw.js'), 'self.x = 1;\n');
  });

  it('finds the first directory that holds a build', async () => {
    const load = staticSiteLoader([join(directory, 'missing'), directory]);
    expect((await load())?.files.has('sw.js')).toBe(true);
    expect(await staticSiteLoader([join(directory, 'missing')])()).toBeUndefined();
  });
});
