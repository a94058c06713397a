import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { runningRuntime } from '#infra/local/attach';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import type { PreparedRequest } from '#shared/client/api-client';
import {
  type ClassName,
  classNames,
  type EndpointClass,
  endpointClasses,
} from '#test/bench/endpoint-classes';
import { seedRuntimeDirectory } from '#test/bench/seeded-directory';
import { percentile, round } from '#test/bench/stats';
import { startServiceProcess } from '#test/support/service-process';

export interface HttpFigures {
  readonly name: ClassName;
  readonly route: string;
  readonly connections: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly median: number; readonly p99: number };
  /** Responses with another status than the class's, and connection errors: 0 in a sound run. */
  readonly unexpected: number;
}

/**
 * Each endpoint class against `npm start`'s runtime in a process of its own (its store and queue are in that process
 * too, as they are for a user), driven by autocannon at each number of concurrent connections. Every signed request
 * needs its own jti and every create a user with nothing pending, so a run's requests are signed (answers sealed)
 * just before it starts, for users written straight into the runtime's store, and each run's responses feed the next
 * class: the creates' requests are what the answers answer, the answered ones what the polls read.
 */
export async function benchHttp(options: {
  readonly connections: readonly number[];
  /** Per run, and at least one per connection. */
  readonly requests: number;
  /** Sequential requests per class before the first run. */
  readonly warmup: number;
  readonly classes?: readonly ClassName[];
  /** The size of the runtime's API key; its default otherwise. */
  readonly apiKeyBits?: ApiKeySize;
}): Promise<HttpFigures[]> {
  const measured = options.classes ?? classNames;
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-http-'));
  const service = await startServiceProcess([
    '--port',
    '0',
    '--data-dir',
    dataDir,
    ...(options.apiKeyBits ? ['--api-key-bits', String(options.apiKeyBits)] : []),
  ]);
  const runtime = await runningRuntime(dataDir);
  if (!runtime) throw new Error('the service process wrote no runtime record');
  let seeded: Awaited<ReturnType<typeof seedRuntimeDirectory>> | undefined;
  try {
    const { baseUrl } = service;
    const name = `Bench HTTP ${Date.now()}`;
    seeded = await seedRuntimeDirectory(
      {
        baseUrl,
        organizationId: service.organizationId,
        privateKeyPath: service.privateKeyPath,
        dynamoEndpoint: runtime.dynamoEndpoint,
        tableName: runtime.tableName,
      },
      name,
    );
    const { organization, organizationPem, directory, fetch } = seeded;
    // A user for every create that can be prepared: the warm-up's and one per request of each run.
    if (measured.includes('create auth')) {
      const runs = options.connections.reduce(
        (sum, connections) => sum + Math.max(options.requests, connections),
        0,
      );
      await directory.growTo(options.warmup + runs);
    }
    let nextUser = 0;
    const classes = endpointClasses({
      organization,
      organizationPem,
      directory,
      nextUser: () => {
        const user = directory.users[nextUser++];
        if (!user) throw new Error('no seeded user left to ask');
        return user;
      },
      name,
    });
    const send = (endpoint: EndpointClass, request: PreparedRequest) =>
      sendClassRequest(fetch, baseUrl, endpoint, request);

    // Warm up: each handler's key imports, caches and store connections, in the order the runs need.
    for (const each of measured) {
      for (let i = 0; i < options.warmup; i++) await send(classes[each], await classes[each].next());
    }

    const figures: HttpFigures[] = [];
    for (const connections of options.connections) {
      for (const each of measured) {
        const endpoint = classes[each];
        const prepared: PreparedRequest[] = [];
        for (let i = 0; i < Math.max(options.requests, connections); i++)
          prepared.push(await endpoint.next());
        figures.push(await run(baseUrl, endpoint, prepared, connections));
      }
    }
    return figures;
  } finally {
    seeded?.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Sends one request of an endpoint class, fails unless it gets the class's status, and lets the class observe the answer. */
export async function sendClassRequest(
  fetch: typeof globalThis.fetch,
  baseUrl: string,
  endpoint: EndpointClass,
  request: PreparedRequest,
): Promise<void> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const body = await response.text();
  if (response.status !== endpoint.status)
    throw new Error(`${endpoint.name} answered ${response.status}: ${body}`);
  await endpoint.observe(request, response.status, body);
}

/** One autocannon run of `prepared`, each request sent once; their responses are then observed in order. */
async function run(
  baseUrl: string,
  endpoint: EndpointClass,
  prepared: readonly PreparedRequest[],
  connections: number,
): Promise<HttpFigures> {
  const responses: { status: number; body: string }[] = [];
  // Autocannon's own histogram counts whole milliseconds: too coarse for the public endpoints.
  const sentAt: number[] = [];
  const latencies: number[] = [];
  let next = 0;
  let lastResponse = 0;
  const result = await autocannon({
    url: baseUrl,
    connections,
    amount: prepared.length,
    // It notices the end of a run at its next sample: every 25 ms rather than every second.
    sampleInt: 25,
    requests: [
      {
        // Autocannon asks for each request just before it sends it, once per request of `amount`.
        setupRequest: (request, context) => {
          const index = next++;
          const each = prepared[index];
          if (!each) throw new Error(`autocannon asked for request ${index + 1} of ${prepared.length}`);
          (context as { index: number }).index = index;
          sentAt[index] = performance.now();
          return {
            ...request,
            method: each.method as 'GET',
            path: each.path,
            headers: { ...request.headers, ...each.headers },
            ...(each.body === undefined ? {} : { body: each.body }),
          };
        },
        // The response to the last request set up on this connection (autocannon does not pipeline here).
        onResponse: (status, body, context) => {
          const { index } = context as { index: number };
          lastResponse = performance.now();
          latencies.push(lastResponse - (sentAt[index] as number));
          responses[index] = { status, body };
        },
      },
    ],
  });
  let unexpected = result.errors;
  for (const [index, request] of prepared.entries()) {
    const response = responses[index];
    if (response?.status !== endpoint.status) unexpected++;
    else await endpoint.observe(request, response.status, response.body);
  }
  // From the first request to the last response: autocannon's own clock includes its connections and its last tick.
  const seconds = (lastResponse - Math.min(...sentAt)) / 1000;
  return {
    name: endpoint.name,
    route: endpoint.route,
    connections,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.total / seconds),
    latencyMs: { median: round(percentile(latencies, 50), 2), p99: round(percentile(latencies, 99), 2) },
    unexpected,
  };
}
