import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type Access,
  announcementSweep,
  fallbackRoute,
  httpRoutes,
  keyRingAccess,
  pushConsumers,
  webAppRoute,
  webhookConsumers,
} from '#infra/routes';
import { bundlingFor, tracerModuleFile, webAuthnModuleFile } from '#infra/function-bundling';
import { buildHandlerBundles, bundleName } from '#test/support/handler-bundles';

/**
 * The project's budget for one function's bundle, its own AWS SDK included, the queue senders and the push worker too:
 * the SDK's credential chain reduced to Lambda's (shared/aws/lambda-credentials.ts) and the tracer moved beside the
 * bundle left room for what they carry. It is about load time (a cold start reads and compiles the whole bundle), far
 * inside what Lambda itself takes, which {@link lambdaPackageLimits} holds.
 */
const maxBundleBytes = 500 * 1024;
/** Lambda's limits on a function's deployment package: unzipped, and zipped for a direct upload. */
const lambdaPackageLimits = { unzippedBytes: 250 * 1024 * 1024, zippedBytes: 50 * 1024 * 1024 };
const outdir = resolve('.tmp/bundles');
/** Every function with what its row grants; the key ring function's own role is for the table only (infra/stack.ts). */
const accessOf = new Map<string, Access>([
  ...httpRoutes.map((route) => [route.handler, route.access] as const),
  [fallbackRoute.handler, fallbackRoute.access],
  // Its JavaScript only: the web app's files beside it are data it serves, held to their own budget by the web build test.
  [webAppRoute.handler, webAppRoute.access],
  ...webhookConsumers.map((consumer) => [consumer.handler, consumer.access] as const),
  ...pushConsumers.map((consumer) => [consumer.handler, consumer.access] as const),
  ['deploy/api-key-ring', keyRingAccess],
  // It shares the key ring function's role, and is given every key secret's variable (infra/stack.ts).
  ['deploy/api-key-schedule', { ...keyRingAccess, apiKeys: true, hashKey: true, vapidKeys: true }],
  [announcementSweep.handler, announcementSweep.access],
  // The edge's custom resource: it reads the origin secrets, whose ids CloudFormation hands it in its event.
  ['deploy/origin-secrets', {}],
  // An adopted key's custom resource: it puts the key policy CloudFormation hands it in its event.
  ['deploy/key-policy', {}],
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
    ...(access.hashKey
      ? { HASH_KEY_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hash' }
      : {}),
    ...(access.vapidKeys
      ? { VAPID_KEYS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:vapid' }
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
  // The X-Ray tracer and the WebAuthn library beside them, by the commands the deployment's bundling runs for a
  // function that verifies passkeys.
  const passkeys = httpRoutes.find((route) => route.access.webAuthn)?.handler ?? '';
  for (const command of bundlingFor(passkeys).commandHooks?.afterBundling(process.cwd(), outdir) ?? []) {
    await promisify(execFile)('/bin/sh', ['-c', command]);
  }
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

  it('each read a key secret exactly when their row grants it: no grant goes unused', () => {
    // A bundle names a secret's variable only if it loads the module that reads that secret.
    const variables = {
      apiKeys: 'API_KEYS_SECRET_ID',
      hashKey: 'HASH_KEY_SECRET_ID',
      vapidKeys: 'VAPID_KEYS_SECRET_ID',
    };
    const mismatches = handlers.flatMap((handler) => {
      const bundle = readFileSync(join(outdir, `${bundleName(handler)}.mjs`), 'utf8');
      const access = accessOf.get(handler) ?? {};
      return Object.entries(variables)
        .filter(
          ([part, variable]) =>
            bundle.includes(variable) !== (access[part as keyof typeof variables] === true),
        )
        .map(([part]) => `${handler}: ${part}`);
    });
    expect(mismatches).toEqual([]);
  });

  it('each leave the X-Ray tracer out: it is the file beside them, which only a traced function loads', () => {
    const carrying = handlers.filter((handler) =>
      readFileSync(join(outdir, `${bundleName(handler)}.mjs`), 'utf8').includes('XRaySDKInstrumentation'),
    );
    expect(carrying).toEqual([]);
    expect(readFileSync(join(outdir, tracerModuleFile), 'utf8')).toContain('XRaySDKInstrumentation');
  });

  it('each load the tracer beside them when run traced, as Lambda runs them, and send the handler its segment', async () => {
    // A stand-in for the X-Ray daemon Lambda runs beside a traced function.
    const daemon = createSocket('udp4');
    const names: string[] = [];
    daemon.on('message', (message) => {
      names.push((JSON.parse(message.toString('utf8').split('\n')[1] ?? '{}') as { name: string }).name);
    });
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const script = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(join(outdir, `${bundleName('public/ping')}.mjs`)).href)});
      const context = { functionName: 'ping', awsRequestId: 'request', getRemainingTimeInMillis: () => 10000 };
      const event = { rawPath: '/public/v3/ping', headers: {}, requestContext: { requestId: 'api-request', http: { method: 'GET' } } };
      console.log((await handler(event, context)).statusCode);
    `;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: {
          PATH: process.env.PATH,
          ...environmentFor({}),
          TRACER_MODULE: `./${tracerModuleFile}`,
          LAMBDA_TASK_ROOT: outdir,
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          _HANDLER: 'index.handler',
          _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
        },
      });
      expect(stdout.trim()).toBe('200');
      await vi.waitFor(() => expect(names).toEqual(['## index.handler']));
    } finally {
      daemon.close();
    }
  });

  it("each carry their own AWS SDK rather than importing the runtime's", () => {
    // An external module stays an import statement, or esbuild's __require for a CommonJS require.
    const importsSdk = /(?:\bfrom\s*|__require\()["']@aws-sdk\//;
    const external = handlers.filter((handler) =>
      importsSdk.test(readFileSync(join(outdir, `${bundleName(handler)}.mjs`), 'utf8')),
    );
    expect(external).toEqual([]);
  });

  it("each make a package, the files beside the bundle included, within Lambda's 250 MB unzipped and 50 MB zipped", () => {
    // The web authenticator's files beside its bundle are held to their own budget by the web build's test.
    const packages = handlers.map((handler) => {
      const files = [
        `${bundleName(handler)}.mjs`,
        `${bundleName(handler)}.mjs.map`,
        tracerModuleFile,
        ...(httpRoutes.some((route) => route.handler === handler && route.access.webAuthn)
          ? [webAuthnModuleFile]
          : []),
      ].map((file) => readFileSync(join(outdir, file)));
      return {
        handler,
        unzipped: files.reduce((sum, file) => sum + file.length, 0),
        zipped: files.reduce((sum, file) => sum + deflateRawSync(file).length, 0),
      };
    });
    expect(
      packages.filter(
        ({ unzipped, zipped }) =>
          unzipped > lambdaPackageLimits.unzippedBytes || zipped > lambdaPackageLimits.zippedBytes,
      ),
    ).toEqual([]);
    // The whole package was measured: its source map and the files beside make it larger than any bundle.
    expect(Math.max(...packages.map(({ unzipped }) => unzipped))).toBeGreaterThan(maxBundleBytes);
  });

  it(`each stay within the project's ${maxBundleBytes / 1024} KB budget; their sizes are in .tmp/bundles/sizes.json`, () => {
    const sizes = Object.fromEntries(
      handlers.map((handler) => [handler, statSync(join(outdir, `${bundleName(handler)}.mjs`)).size]),
    );
    writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
    expect(Object.entries(sizes).filter(([, bytes]) => bytes > maxBundleBytes)).toEqual([]);
  });
});
