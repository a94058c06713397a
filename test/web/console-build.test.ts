import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildReport, isSiteCurrent } from '#web/authenticator/build';
import { buildWebConsole } from '#web/console/build';
import { sharedLookBundled } from './built-stylesheet.ts';

/** The console pages' build: what it writes, and the JavaScript budget the issue sets (as the authenticator's). */

/** The budget for the console's JavaScript, gzipped. */
const maxJavascriptGzipBytes = 150 * 1024;

let directory: string;
let outdir: string;
let report: BuildReport;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'console-build-'));
  outdir = join(directory, 'console');
  report = await buildWebConsole(outdir);
}, 120_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("the console pages' build", () => {
  it(`keeps the pages' JavaScript under ${maxJavascriptGzipBytes / 1024} KB gzipped`, async () => {
    const scripts = Object.keys(report.manifest.files).filter((name) => name.endsWith('.js'));
    expect(scripts).toHaveLength(1);
    let total = 0;
    for (const name of scripts) total += gzipSync(await readFile(join(outdir, name)), { level: 9 }).length;
    console.warn(`the console's JavaScript: ${(total / 1024).toFixed(1)} KB gzipped`);
    expect(total).toBe(report.javascriptGzipBytes);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(maxJavascriptGzipBytes);
  });

  it('lists every file it wrote with its hash, and points the page at hashed files cached for good', async () => {
    const written = (await readdir(outdir)).filter((name) => name !== 'assets.json').sort();
    expect(Object.keys(report.manifest.files).sort()).toEqual(written);
    for (const [name, file] of Object.entries(report.manifest.files)) {
      const content = await readFile(join(outdir, name));
      expect(createHash('sha256').update(content).digest('hex')).toBe(file.sha256);
    }
    const html = await readFile(join(outdir, 'index.html'), 'utf8');
    const references = [...html.matchAll(/\b(?:href|src)="\.\/([^"]+)"/g)].map(([, name = '']) => name);
    expect(references).toHaveLength(3);
    for (const name of references) {
      expect(report.manifest.files[name]?.cache).toBe('immutable');
      expect(name).toMatch(/-[A-Za-z0-9]{8,}\.\w+$/);
    }
    expect(report.manifest.files['index.html']?.cache).toBe('no-cache');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=/i);
  });

  it('bundles the look it shares with the web authenticator into its one hashed stylesheet', async () => {
    await sharedLookBundled(outdir, report.manifest);
  });

  it('is current until a source changes', async () => {
    expect(await isSiteCurrent(outdir)).toBe(true);
    const inputs = `${outdir}.inputs.json`;
    const recorded = JSON.parse(await readFile(inputs, 'utf8')) as Record<string, string>;
    expect(Object.keys(recorded)).toEqual(
      expect.arrayContaining([
        'web/console/main.ts',
        'web/authenticator/dom.ts',
        'web/console/index.html',
        'web/authenticator/base.css',
      ]),
    );
    await writeFile(inputs, JSON.stringify({ ...recorded, 'web/console/main.ts': 'changed' }));
    expect(await isSiteCurrent(outdir)).toBe(false);
  });
});
