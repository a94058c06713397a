import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { httpRoutes } from '#infra/routes';
import type { PreparedRequest } from '#shared/client/api-client';
import { queuedMessageBody } from '#shared/events/webhook-event';
import { buildHandlerBundles, bundledHandlers, bundleName } from '#test/support/handler-bundles';
import { type ClassName, classNames, endpointClasses } from '#test/bench/endpoint-classes';
import type { BenchEnvironment } from '#test/bench/environment';
import { type SeededUser, seedInProcessDirectory } from '#test/bench/seeded-directory';
import { percentile, round } from '#test/bench/stats';
import { toHttpEvent, unsignedRequest } from '#test/support/events';
import { projectRoot } from '#test/support/service-process';

/** The design's budgets for a function: import and first request, and its bundle without the source map. */
export const coldStartTargetMs = 150;
export const bundleTargetKb = 500;

export interface ColdStartsFigures {
  readonly repetitions: number;
  readonly bundles: BundleFigures[];
  /**
   * A fresh process that only imports the AWS SDK's DynamoDB clients from node_modules, as a function on the runtime's
   * SDK instead of its own bundled copy would: what bundling the SDK saves (infra/route-function.ts). Median, ms.
   */
  readonly awsSdkImportMs: number;
}

export interface BundleFigures {
  readonly handler: string;
  /** The minified bundle, without its source map. */
  readonly bundleBytes: number;
  /** The request served first: its route, or what stands in for one. */
  readonly request: string | null;
  /** Medians over the repetitions; null for a function that serves no request here. */
  readonly importMs: number | null;
  readonly firstRequestMs: number | null;
  /** Import and first request: the cold start (target ≤ 150 ms). */
  readonly coldStartMs: number | null;
  /** From the process's own start (Node's boot included) to the first response. */
  readonly sinceProcessStartMs: number | null;
  readonly status: number | string | null;
}

/** A bundle's first request in a fresh process, and the time it took, as the child reports it. */
interface ChildReport {
  readonly importMs: number;
  readonly firstRequestMs: number;
  readonly sinceProcessStartMs: number;
  readonly status: number | string;
  readonly body: string;
}

/**
 * Runs in a plain `node` with only the Lambda's environment: no tsx, no path aliases. It imports the bundle, hands its
 * handler the event, and reports the times on its last line of output.
 */
const childScript = `
const started = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const imported = performance.now();
const deadline = Date.now() + 10_000;
const context = {
  callbackWaitsForEmptyEventLoop: true, functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench', memoryLimitInMB: '1024',
  awsRequestId: crypto.randomUUID(), logGroupName: '/aws/lambda/bench', logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()), done() {}, fail() {}, succeed() {},
};
const result = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const served = performance.now();
const status = result?.statusCode ?? (result?.batchItemFailures ? result.batchItemFailures.length + ' failed' : 200);
// Standard output to a pipe is written asynchronously: exit once the report is out.
process.stdout.write('\\n' + JSON.stringify({
  importMs: imported - started, firstRequestMs: served - imported, sinceProcessStartMs: served, status,
  body: result?.body ?? '',
}) + '\\n', () => process.exit(0));
`;

/** The AWS SDK's DynamoDB clients from node_modules, as a function on the runtime's SDK would import them. */
const sdkImportScript = `
const started = performance.now();
await import('@aws-sdk/client-dynamodb');
await import('@aws-sdk/lib-dynamodb');
process.stdout.write('\\n' + JSON.stringify({ ms: performance.now() - started }) + '\\n', () => process.exit(0));
`;

/**
 * Each function the stack deploys, bundled by esbuild as infra/route-function.ts has NodejsFunction bundle it, then
 * started `repetitions` times in a fresh `node` process that imports the bundle and serves one request against the
 * bench environment's store: the hot path's functions a real request of their endpoint class (a create for a user
 * with nothing pending, an answer to it, a poll of the answer), the others a request signed by the party their API
 * expects with an empty body, and the webhook worker one queued event. Times are the process's own: import, first
 * request, and both.
 */
export async function benchColdStarts(
  environment: BenchEnvironment,
  options: {
    readonly repetitions: number;
    readonly outdir: string;
    /** Only these functions start cold; every bundle is still built and sized. */
    readonly handlers?: 'all' | 'endpoint classes';
  },
): Promise<ColdStartsFigures> {
  const outdir = resolve(options.outdir);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await buildHandlerBundles(outdir);

  const name = `Bench cold starts ${Date.now()}`;
  const { table, organization, directory } = await seedInProcessDirectory(environment, name);
  await directory.growTo(options.repetitions);
  let nextUser = 0;
  const classes = endpointClasses({
    organization,
    organizationPem: environment.organizationPem,
    directory,
    nextUser: () => directory.users[nextUser++] as SeededUser,
    name,
  });
  const classOfHandler = new Map<string, ClassName>();
  for (const each of classNames) {
    const route = httpRoutes.find((row) => `${row.method} ${row.path}` === classes[each].route);
    if (route && !classOfHandler.has(route.handler)) classOfHandler.set(route.handler, each);
  }
  // The endpoint classes' functions first, in the order whose responses feed the next; then the others.
  const handlers = [
    ...classOfHandler.keys(),
    ...(options.handlers === 'endpoint classes'
      ? []
      : bundledHandlers.filter((handler) => !classOfHandler.has(handler))),
  ];

  /** A signed request as the party each API area expects, with an empty body where the method has one. */
  const genericRequest = (method: string, path: string): Promise<PreparedRequest> => {
    const body = method === 'GET' ? {} : { body: {} };
    if (path.startsWith('/directory/'))
      return organization.prepare(method, path, { subject: `dir:${directory.directoryId}`, ...body });
    if (path.startsWith('/service/')) return directory.service.prepare(method, path, body);
    if (path.startsWith('/device/'))
      return directory.device(directory.users[0] as SeededUser).prepare(method, path, body);
    return organization.prepare(method, path, body);
  };
  const firstRequest = async (handler: string): Promise<{ label: string; event: unknown } | undefined> => {
    const endpoint = classOfHandler.get(handler);
    if (endpoint) {
      const request = await classes[endpoint].next();
      return { label: `${classes[endpoint].route} (${endpoint})`, event: table.route(request).event };
    }
    if (handler === 'events/deliver-webhooks') {
      // An event about a request whose service has no callback: read, and nowhere to deliver.
      const body = queuedMessageBody({ kind: 'authorization-response', authRequestId: randomUUID() });
      return { label: 'one queued webhook event', event: { Records: [sqsRecord(body)] } };
    }
    if (handler === 'fallback/unknown-route') {
      const request = await organization.prepare('GET', '/organization/v3/no-such-operation');
      return { label: 'GET /organization/v3/no-such-operation', event: toHttpEvent(request) };
    }
    const route = httpRoutes.find((row) => row.handler === handler);
    if (!route) return undefined;
    const path = route.path.replace(/\{(\w+)\}/g, (_, parameter: string) =>
      parameter === 'code' ? 'ABCDEFGH' : randomUUID(),
    );
    const unsigned = !/^\/(organization|directory|service|device)\//.test(path) || path === '/device/v3/link';
    const request: PreparedRequest = unsigned
      ? unsignedRequest(
          path,
          route.method === 'GET'
            ? {}
            : { method: route.method, headers: { 'content-type': 'application/json' }, body: '{}' },
        )
      : await genericRequest(route.method, path);
    return { label: `${route.method} ${route.path}`, event: table.route(request).event };
  };

  // Only what the function's environment would hold: the store, the queues, the key files, no tsx.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        /^(AWS_|POWERTOOLS_|WEBHOOK_)/.test(key) ||
        ['PATH', 'TABLE_NAME', 'API_KEYS_FILE', 'HASH_KEY_FILE', 'VAPID_KEYS_FILE'].includes(key),
    ),
  );
  const node = (script: string, extra: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: projectRoot,
      env: { ...env, NODE_NO_WARNINGS: '1', ...extra },
      maxBuffer: 16 * 1024 * 1024,
    });
  const lastLine = (stdout: string): unknown => JSON.parse(stdout.trim().split('\n').at(-1) as string);

  const sdkImports: number[] = [];
  const reports = new Map<string, ChildReport[]>();
  const labels = new Map<string, string>();
  for (let repetition = 0; repetition < options.repetitions; repetition++) {
    const { stdout } = await node(sdkImportScript);
    sdkImports.push((lastLine(stdout) as { ms: number }).ms);
    for (const handler of handlers) {
      const first = await firstRequest(handler);
      if (!first) continue;
      labels.set(handler, first.label);
      const { stdout } = await node(childScript, {
        BENCH_BUNDLE: pathToFileURL(join(outdir, `${bundleName(handler)}.mjs`)).href,
        BENCH_EVENT: JSON.stringify(first.event),
      }).catch((error: unknown) => {
        throw new Error(
          `${handler} did not serve its first request: ${(error as { stderr?: string }).stderr}`,
        );
      });
      const report = lastLine(stdout) as ChildReport;
      reports.set(handler, [...(reports.get(handler) ?? []), report]);
      const endpoint = classOfHandler.get(handler);
      if (endpoint && typeof report.status === 'number') {
        const event = first.event as { rawPath: string; body?: string; headers: Record<string, string> };
        await classes[endpoint].observe(
          { method: '', path: event.rawPath, headers: event.headers, body: undefined, jti: '', subject: '' },
          report.status,
          report.body,
        );
      }
    }
  }

  const median = (values: number[]) => round(percentile(values, 50), 1);
  const bundles = await Promise.all(
    bundledHandlers.map(async (handler): Promise<BundleFigures> => {
      const runs = reports.get(handler);
      const bundleBytes = (await stat(join(outdir, `${bundleName(handler)}.mjs`))).size;
      if (!runs)
        return {
          handler,
          bundleBytes,
          request: null,
          importMs: null,
          firstRequestMs: null,
          coldStartMs: null,
          sinceProcessStartMs: null,
          status: null,
        };
      return {
        handler,
        bundleBytes,
        request: labels.get(handler) ?? null,
        importMs: median(runs.map((run) => run.importMs)),
        firstRequestMs: median(runs.map((run) => run.firstRequestMs)),
        coldStartMs: median(runs.map((run) => run.importMs + run.firstRequestMs)),
        sinceProcessStartMs: median(runs.map((run) => run.sinceProcessStartMs)),
        status: (runs.at(-1) as ChildReport).status,
      };
    }),
  );
  return { repetitions: options.repetitions, bundles, awsSdkImportMs: median(sdkImports) };
}

/** An SQS record as Lambda's event source mapping hands it to the worker. */
function sqsRecord(body: string) {
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench-webhooks',
    awsRegion: 'us-east-1',
  };
}
