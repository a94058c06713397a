import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#test/support/service-process';

/** The web authenticator's whole budget: 150 KB of JavaScript, gzipped. */
const pageBudgetBytes = 150 * 1024;

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Bundles an entry as a browser page would, noting every Node builtin it reaches and from where. */
async function bundleForBrowser(entry: string): Promise<{ reached: string[]; gzipBytes: number }> {
  const reached: string[] = [];
  const noteBuiltins: Plugin = {
    name: 'note-node-builtins',
    setup(plugin) {
      plugin.onResolve({ filter: /.*/ }, ({ path, importer }) => {
        if (!path.startsWith('node:') && !builtins.has(path.split('/')[0] ?? '')) return undefined;
        reached.push(`${path} (imported by ${relative(projectRoot, importer)})`);
        return { path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    plugins: [noteBuiltins],
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { reached, gzipBytes: gzipSync(code).byteLength };
}

describe('the browser entry of the authenticator', () => {
  it('reaches no Node builtin and fits the page budget', async () => {
    const { reached, gzipBytes } = await bundleForBrowser('shared/authenticator/index.ts');
    console.warn(`shared/authenticator/index.ts bundles to ${(gzipBytes / 1024).toFixed(1)} KB gzipped`);
    expect(reached).toEqual([]);
    expect(gzipBytes).toBeLessThan(pageBudgetBytes);
  });

  it('names the builtin and its importer when a module reaches one', async () => {
    const { reached } = await bundleForBrowser('shared/cli/push-watch.ts');
    expect(reached).toContain('node:http (imported by shared/cli/push-watch.ts)');
  });
});
