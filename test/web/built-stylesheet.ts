import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AssetManifest } from '#web/authenticator/build';

/**
 * The one stylesheet a page's build wrote, checked to hold the look both pages share (web/authenticator/base.css) bundled in:
 * an `@import` left for the browser would fetch a file without a hashed name, which no build lists.
 */
export async function sharedLookBundled(outdir: string, manifest: AssetManifest): Promise<void> {
  const styles = Object.keys(manifest.files).filter((name) => name.endsWith('.css'));
  expect(styles).toHaveLength(1);
  const css = await readFile(join(outdir, styles[0] ?? ''), 'utf8');
  expect(css).not.toContain('@import');
  expect(css).toMatch(/--focus:\s*#1b6ac9/);
}
