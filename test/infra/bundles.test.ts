import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Access,
  fallbackRoute,
  httpRoutes,
  pushConsumers,
  webAppRoute,
  webhookConsumers,
} from '#infra/routes';
import { buildHandlerBundles, bundleName } from '#test/support/handler-bundles';

/** The budget for one function's bundle, its own AWS SDK included. */
const maxBundleBytes = 500 * 1024;
/**
 * What a function may carry beyond it: one that sends to a queue carries the SQS client too (about 30 KB), and the
 * push worker web-push with its ASN.1, JWS and RFC 8188 dependencies (about 95 KB); cold starts off the request path.
 */
function budgetFor(access: Access): number {
  const queues = access.webhookQueue || access.webhookDelivery || access.pushQueue || access.pushDelivery;
  return maxBundleBytes + (queues ? 32 * 1024 : 0) + (access.pushDelivery ? 128 * 1024 : 0);
}
const outdir = resolve('.tmp/bundles');
/** Every function with what its row grants; the key ring function's own role is for the table only (infra/stack.ts). */
const accessOf = new Map<string, Access>([
  ...httpRoutes.map((route) => [route.handler, route.access] as const),
  [fallbackRoute.handler, fallbackRoute.access],
  // Its JavaScript only: the web app's files beside it are data it serves, held to their own budget by the web build test.
  [webAppRoute.handler, webAppRoute.access],
  ...webhookConsumers.map((consumer) => [consumer.handler, consumer.access] as const),
  ...pushConsumers.map((consumer) => [consumer.handler, consumer.access] as const),
  ['deploy/api-key-ring', { table: 'write' }],
]);
const handlers = [...accessOf.keys()];

/** The variables RouteFunction sets for an access, and no others: a module that reads one it was not given fails. */
function environmentFor(access: Access): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'table',
    POWERTOOLS_METRICS_DISABLED: 'true',
    NODE_NO_WARNINGS: '1',
    ...(access.apiKeys
      ? { API_KEYS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:keys' }
      : {}),
    ...(access.webhookQueue || access.webhookDelivery
      ? { WEBHOOK_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks' }
      : {}),
    ...(access.webhookDelivery
      ? { WEBHOOK_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/webhooks-dlq' }
      : {}),
    ...(access.pushQueue || access.pushDelivery
      ? { PUSH_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/push' }
      : {}),
    ...(access.pushDelivery
      ? {
          PUSH_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/push-dlq',
          PUSH_VAPID_SUBJECT: 'https://mfa.example.com',
        }
      : {}),
  };
}

beforeAll(async () => {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await buildHandlerBundles(outdir, handlers);
}, 120_000);

describe('the bundled handlers', () => {
  it('each load under plain node, as Lambda imports them, with only the variables their own row gives them', async () => {
    // One process per distinct environment: a module's load-time failure shows in the handlers that import it.
    const groups = new Map<string, string[]>();
    for (const [handler, access] of accessOf) {
      const environment = JSON.stringify(environmentFor(access));
      groups.set(environment, [...(groups.get(environment) ?? []), handler]);
    }
    const failures: string[] = [];
    for (const [environment, members] of groups) {
      const files = members.map((handler) => join(outdir, `${bundleName(handler)}.mjs`));
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
        env: { PATH: process.env.PATH, ...(JSON.parse(environment) as Record<string, string>) },
      });
      failures.push(...(JSON.parse(stdout) as string[]));
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("each carry their own AWS SDK rather than importing the runtime's", () => {
    // An external module stays an import statement, or esbuild's __require for a CommonJS require.
    const importsSdk = /(?:\bfrom\s*|__require\()["']@aws-sdk\//;
    const external = handlers.filter((handler) =>
      importsSdk.test(readFileSync(join(outdir, `${bundleName(handler)}.mjs`), 'utf8')),
    );
    expect(external).toEqual([]);
  });

  it(`each stay within ${maxBundleBytes / 1024} KB (more for queue senders); their sizes are in .tmp/bundles/sizes.json`, () => {
    const sizes = Object.fromEntries(
      handlers.map((handler) => [handler, statSync(join(outdir, `${bundleName(handler)}.mjs`)).size]),
    );
    writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
    expect(
      Object.entries(sizes).filter(([handler, bytes]) => bytes > budgetFor(accessOf.get(handler) ?? {})),
    ).toEqual([]);
  });
});
