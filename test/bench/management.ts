import type { PreparedRequest } from '#shared/client/api-client';
import type { BenchEnvironment, Handler } from '#test/bench/environment';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { countingStoreCalls, totalCalls } from '#test/bench/store-calls';

export interface ManagementFigures {
  readonly listServices: {
    readonly services: number;
    readonly requests: number;
    readonly storeRoundTrips: Record<string, number>;
    /** Query pages that read the services. */
    readonly queryPages: number;
    readonly latencyMs: { readonly median: number; readonly p99: number };
    readonly serverCpuMsPerRequest: number;
  };
  readonly createService: {
    readonly requests: number;
    readonly perSecond: number;
    readonly storeRoundTrips: Record<string, number>;
    readonly latencyMs: { readonly median: number; readonly p99: number };
    readonly serverCpuMsPerRequest: number;
  };
}

/**
 * GET /directory/v3/services on a directory with `services` services, and POST /directory/v3/services one after the
 * other, both through the real handlers in-process, with the round trips each makes.
 */
export async function benchManagement(
  environment: BenchEnvironment,
  options: { services: number; listRequests: number; createRequests: number },
): Promise<ManagementFigures> {
  const { createDirectory } = await import('#shared/use-cases/directories');
  const { createService } = await import('#shared/use-cases/services');
  const directoryId = await createDirectory(environment.organizationId, `Bench ${Date.now()}`, new Date());
  const owner = { type: 'dir', id: directoryId } as const;
  const prefix = `bench-${Date.now()}`;
  for (let start = 0; start < options.services; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, options.services - start) }, (_, index) =>
        createService(owner, { name: `${prefix}-${start + index}` }, new Date()),
      ),
    );
  }

  const client = environment.client();
  const subject = `dir:${directoryId}`;
  const list = (await import('#functions/directory/list-services')) as { handler: Handler };
  const create = (await import('#functions/directory/create-service')) as { handler: Handler };

  const run = async (handler: Handler, requests: PreparedRequest[], expectedStatus: number) => {
    const latencies: number[] = [];
    const cpu = await cpuMs(async () => {
      for (const request of requests) {
        const started = performance.now();
        const result = await environment.invoke(handler, request);
        latencies.push(performance.now() - started);
        if (result.statusCode !== expectedStatus) throw new Error(`unexpected status ${result.statusCode}`);
      }
    });
    return { latencies, cpu };
  };
  const prepareList = () => client.prepare('GET', '/directory/v3/services', { subject });
  let names = 0;
  const prepareCreate = () =>
    client.prepare('POST', '/directory/v3/services', { subject, body: { name: `${prefix}-new-${names++}` } });

  const { calls: listCalls, result: listed } = await countingStoreCalls(async () =>
    environment.invoke(list.handler, await prepareList()),
  );
  if (listed.statusCode !== 200) throw new Error(`list answered ${listed.statusCode}`);
  const listRequests = await Promise.all(Array.from({ length: options.listRequests }, prepareList));
  const listRun = await run(list.handler, listRequests, 200);

  const { calls: createCalls } = await countingStoreCalls(async () =>
    environment.invoke(create.handler, await prepareCreate()),
  );
  const createRequests: PreparedRequest[] = [];
  for (let i = 0; i < options.createRequests; i++) createRequests.push(await prepareCreate());
  const started = performance.now();
  const createRun = await run(create.handler, createRequests, 201);
  const seconds = (performance.now() - started) / 1000;

  return {
    listServices: {
      services: options.services,
      requests: options.listRequests,
      storeRoundTrips: listCalls,
      // Every signed request makes one Query of its own (the issuer's keys); the rest page through the services.
      queryPages: (listCalls.QueryCommand ?? 0) - 1,
      latencyMs: {
        median: round(percentile(listRun.latencies, 50)),
        p99: round(percentile(listRun.latencies, 99)),
      },
      serverCpuMsPerRequest: round(listRun.cpu / options.listRequests),
    },
    createService: {
      requests: options.createRequests,
      perSecond: Math.round(options.createRequests / seconds),
      storeRoundTrips: { ...createCalls, total: totalCalls(createCalls) },
      latencyMs: {
        median: round(percentile(createRun.latencies, 50)),
        p99: round(percentile(createRun.latencies, 99)),
      },
      serverCpuMsPerRequest: round(createRun.cpu / options.createRequests),
    },
  };
}
