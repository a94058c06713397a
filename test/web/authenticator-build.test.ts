import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webPushPayload } from '#shared/push/web-push';
import { parsePushMessage } from '#web/authenticator/sw/push-message';
import {
  type BuildReport,
  buildWebAuthenticator,
  isWebAuthenticatorCurrent,
  rewriteIndex,
} from '#web/authenticator/build';
import { sharedLookBundled } from './built-stylesheet.ts';

/** The web authenticator's build: what it writes, what it refuses, and the budget the issue sets. */

/** The budget for the page's JavaScript, gzipped. */
const maxJavascriptGzipBytes = 150 * 1024;

let directory: string;
let outdir: string;
let report: BuildReport;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'web-build-'));
  outdir = join(directory, 'authenticator');
  report = await buildWebAuthenticator(outdir);
}, 120_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

describe('the build', () => {
  it(`keeps the page's JavaScript under ${maxJavascriptGzipBytes / 1024} KB gzipped`, async () => {
    const scripts = Object.keys(report.manifest.files).filter((name) => name.endsWith('.js'));
    expect(scripts).toContain('sw.js');
    let total = 0;
    for (const name of scripts) total += gzipSync(await readFile(join(outdir, name)), { level: 9 }).length;
    expect(total).toBe(report.javascriptGzipBytes);
    expect(total).toBeLessThan(maxJavascriptGzipBytes);
  });

  it('lists every file it wrote with its content hash, and nothing else', async () => {
    const { readdir } = await import('node:fs/promises');
    const written = (await readdir(outdir)).filter((name) => name !== 'assets.json').sort();
    expect(Object.keys(report.manifest.files).sort()).toEqual(written);
    for (const [name, file] of Object.entries(report.manifest.files)) {
      const content = await readFile(join(outdir, name));
      expect(sha256(content)).toBe(file.sha256);
      expect(content.length).toBe(file.bytes);
    }
    expect(JSON.parse(await readFile(join(outdir, 'assets.json'), 'utf8'))).toEqual(report.manifest);
  });

  it('points index.html at files that exist, each named after its content and cached for good', async () => {
    const html = await readFile(join(outdir, 'index.html'), 'utf8');
    const references = [...html.matchAll(/\b(?:href|src)="\.\/([^"]+)"/g)].map(([, name = '']) => name);
    expect(references.length).toBeGreaterThanOrEqual(5);
    for (const name of references.filter((reference) => reference !== 'manifest.webmanifest')) {
      const file = report.manifest.files[name];
      expect(file).toBeDefined();
      expect(file?.cache).toBe('immutable');
      const hash = /-([A-Za-z0-9]{8,})\.\w+$/.exec(name)?.[1] ?? '';
      expect(hash).not.toBe('');
    }
    for (const name of ['index.html', 'sw.js', 'manifest.webmanifest']) {
      expect(report.manifest.files[name]?.cache).toBe('no-cache');
    }
  });

  it('gives the service worker the list of hashed files to precache', async () => {
    const worker = await readFile(join(outdir, 'sw.js'), 'utf8');
    const hashed = Object.entries(report.manifest.files)
      .filter(([, file]) => file.cache === 'immutable')
      .map(([name]) => name);
    for (const name of hashed) expect(worker).toContain(`"./${name}"`);
    expect(worker).not.toContain('APP_SHELL');
  });

  it('makes PNG icons of the sizes the manifest says', async () => {
    const webManifest = JSON.parse(await readFile(join(outdir, 'manifest.webmanifest'), 'utf8')) as {
      icons: { src: string; sizes: string }[];
    };
    const html = await readFile(join(outdir, 'index.html'), 'utf8');
    const touchIcon = /rel="apple-touch-icon" href="\.\/([^"]+)"/.exec(html)?.[1] ?? '';
    const icons = [
      ...webManifest.icons.map((icon) => [icon.src.replace('./', ''), icon.sizes] as const),
      [touchIcon, '180x180'] as const,
    ];
    for (const [name, sizes] of icons) {
      const png = await readFile(join(outdir, name));
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(sizes);
    }
  });

  it('bundles the look it shares with the console into its one hashed stylesheet, and rebuilds when that changes', async () => {
    await sharedLookBundled(outdir, report.manifest);
    const inputs = `${outdir}.inputs.json`;
    const original = await readFile(inputs, 'utf8');
    const recorded = JSON.parse(original) as Record<string, string>;
    expect(Object.keys(recorded)).toContain('web/authenticator/base.css');
    await writeFile(inputs, JSON.stringify({ ...recorded, 'web/authenticator/base.css': 'changed' }));
    expect(await isWebAuthenticatorCurrent(outdir)).toBe(false);
    await writeFile(inputs, original);
  });

  it('is current until a source changes', async () => {
    expect(await isWebAuthenticatorCurrent(outdir)).toBe(true);
    const inputs = `${outdir}.inputs.json`;
    const recorded = JSON.parse(await readFile(inputs, 'utf8')) as Record<string, string>;
    expect(Object.keys(recorded)).toContain('web/authenticator/main.ts');
    await writeFile(inputs, JSON.stringify({ ...recorded, 'web/authenticator/main.ts': 'changed' }));
    expect(await isWebAuthenticatorCurrent(outdir)).toBe(false);
    expect(await isWebAuthenticatorCurrent(join(directory, 'none'))).toBe(false);
  });
});

describe('the page template', () => {
  const names = new Map([['main.ts', 'app-ABCDEFGH.js']]);

  it('refuses inline script and style, which the Content-Security-Policy would block', () => {
    for (const template of [
      '<script>alert(1)</script>',
      '<style>p{}</style>',
      '<p style="color:red">',
      '<button onclick="go()">',
    ]) {
      expect(() => rewriteIndex(template, names)).toThrow(/inline script or style/);
    }
  });

  it('refuses a reference to a file the build does not make', () => {
    expect(() => rewriteIndex('<img src="./missing.png">', names)).toThrow(/not a file the build makes/);
    expect(rewriteIndex('<script type="module" src="./main.ts"></script>', names)).toBe(
      '<script type="module" src="./app-ABCDEFGH.js"></script>',
    );
  });
});

describe("the service worker's push message", () => {
  const message = {
    type: 'auth_request',
    auth_request: 'a1b2c3d4-0000-4000-8000-000000000000',
    title: 'Acme',
    body: 'Approve or deny the sign-in request',
    tag: 'a1b2c3d4-0000-4000-8000-000000000000',
  };

  it('reads what the service pushes', () => {
    expect(parsePushMessage(JSON.stringify(message))).toEqual(message);
    expect(
      parsePushMessage(JSON.stringify({ ...message, type: 'auth_request_ended', tag: undefined })),
    ).toEqual({
      ...message,
      type: 'auth_request_ended',
    });
  });

  it("reads a link request's push, the line the service chose or its own", () => {
    const deviceId = 'b1b2c3d4-0000-4000-8000-000000000000';
    // The service's line (shared/use-cases/deliver-push.ts), which loads the store and so stays out of this test.
    const linkRequestPush = { title: 'A new device wants to join', body: 'Approve or refuse it in the app' };
    const payload = webPushPayload({ kind: 'link-request', deviceId, ttlSeconds: 600, ...linkRequestPush });
    expect(parsePushMessage(payload)).toEqual({
      type: 'device_link_request',
      device_id: deviceId,
      title: 'A new device wants to join',
      body: linkRequestPush.body,
      tag: deviceId,
    });
    expect(
      parsePushMessage(JSON.stringify({ type: 'device_link_request', device_id: deviceId })),
    ).toMatchObject({
      title: 'A new device wants to join',
      tag: deviceId,
    });
    expect(parsePushMessage(JSON.stringify({ type: 'device_link_request' }))).toBeUndefined();
  });

  it('reads a declarative push message, with or without the top-level copy of its text', () => {
    const page = 'https://mfa.example.com/authenticator/';
    const payload = webPushPayload(
      {
        kind: 'prompt',
        authRequestId: message.auth_request,
        title: 'Acme',
        body: message.body,
        ttlSeconds: 60,
      },
      page,
    );
    expect(parsePushMessage(payload)).toEqual(message);
    const {
      title: _title,
      body: _body,
      tag: _tag,
      ...declarativeOnly
    } = JSON.parse(payload) as Record<string, unknown>;
    expect(parsePushMessage(JSON.stringify(declarativeOnly))).toEqual(message);
  });

  it('refuses anything else', () => {
    for (const text of [
      undefined,
      '',
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...message, type: 'other' }),
    ]) {
      expect(parsePushMessage(text)).toBeUndefined();
    }
    expect(parsePushMessage(JSON.stringify({ ...message, title: 7 }))).toBeUndefined();
  });
});
