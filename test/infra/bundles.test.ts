import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { handlerBundling } from '#infra/route-function';
import { fallbackRoute, httpRoutes, webhookConsumers } from '#infra/routes';

/** architecture.md's budget for one function's bundle. */
const maxBundleBytes = 500 * 1024;
const outdir = resolve('.tmp/bundles');
const handlers = [
  ...new Set([
    ...httpRoutes.map((route) => route.handler),
    fallbackRoute.handler,
    ...webhookConsumers.map((consumer) => consumer.handler),
    'deploy/api-key-ring',
  ]),
];
const bundleName = (handler: string) => handler.replaceAll('/', '__');

beforeAll(async () => {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  // What NodejsFunction asks of esbuild, for every handler in one run.
  await build({
    entryPoints: Object.fromEntries(
      handlers.map((handler) => [bundleName(handler), `functions/${handler}.ts`]),
    ),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: handlerBundling.target,
    minify: handlerBundling.minify,
    sourcemap: handlerBundling.sourceMap,
    mainFields: handlerBundling.mainFields,
    external: handlerBundling.externalModules,
    banner: { js: handlerBundling.banner },
    logLevel: 'silent',
  });
}, 120_000);

describe('the bundled handlers', () => {
  it('each load under plain node, as Lambda imports them, and export a handler', async () => {
    const files = handlers.map((handler) => join(outdir, `${bundleName(handler)}.mjs`));
    const script = `
      const failures = [];
      for (const file of ${JSON.stringify(files)}) {
        try {
          const module = await import(file);
          if (typeof module.handler !== 'function') failures.push(file + ': no handler export');
        } catch (error) {
          failures.push(file + ': ' + error.message);
        }
      }
      console.log(JSON.stringify(failures));
    `;
    // Only what Lambda's environment would hold: no tsx, no path aliases, the variables the stack sets.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        TABLE_NAME: 'table',
        API_KEYS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:keys',
        WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks',
        WEBHOOK_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks-dlq',
        POWERTOOLS_METRICS_DISABLED: 'true',
        NODE_NO_WARNINGS: '1',
      },
    });
    expect(JSON.parse(stdout)).toEqual([]);
  }, 120_000);

  it(`each stay within ${maxBundleBytes / 1024} KB; their sizes are in .tmp/bundles/sizes.json`, () => {
    const sizes = Object.fromEntries(
      handlers.map((handler) => [handler, statSync(join(outdir, `${bundleName(handler)}.mjs`)).size]),
    );
    writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
    expect(Object.entries(sizes).filter(([, bytes]) => bytes > maxBundleBytes)).toEqual([]);
  });
});
