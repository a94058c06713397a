import { createPublicKey, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { PreparedRequest } from '#shared/client/api-client';
import { keyId } from '#shared/protocol/kid';
import { currentApiKey, unavoidableCryptoMs } from '#test/bench/crypto-cost';
import type { BenchEnvironment, Handler } from '#test/bench/environment';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { countingStoreCalls, recordStoreAnswers, totalCalls } from '#test/bench/store-calls';

export interface PipelineFigures {
  readonly requests: number;
  readonly serverCpuMsPerRequest: number;
  readonly cryptoCpuMsPerRequest: number;
  readonly storeClientCpuMsPerRequest: number;
  readonly ratioToCrypto: number;
  readonly ratioToCryptoExcludingStoreClient: number;
  readonly storeRoundTripsPerRequest: number;
  /** The same handler with the store's answers replayed from memory: the pipeline and its crypto, no store I/O. */
  readonly pipelineCpuMsPerRequestWithoutStoreIo: number;
  readonly pipelineRatioToCrypto: number;
  readonly latencyMs: { readonly median: number; readonly p99: number };
  /** One request after another, as one Lambda container serves them. */
  readonly requestsPerSecond: number;
}

/**
 * A signed request with a body (POST /organization/v3/directories/list) through the real handler, in-process, with the
 * store in another process. Client-side signing and encryption happen before the clock starts.
 */
export async function benchPipeline(
  environment: BenchEnvironment,
  requests: number,
  options: { profilePath?: string } = {},
): Promise<PipelineFigures> {
  const client = environment.client();
  const { handler } = (await import('#functions/organization/list-directories-by-ids')) as {
    handler: Handler;
  };
  const prepare = async (count: number) => {
    const prepared: PreparedRequest[] = [];
    for (let i = 0; i < count; i++) {
      prepared.push(
        await client.prepare('POST', '/organization/v3/directories/list', { body: { directory_ids: [] } }),
      );
    }
    return prepared;
  };
  const run = async (batch: PreparedRequest[], latencies: number[] = []) => {
    for (const request of batch) {
      const started = performance.now();
      const result = await environment.invoke(handler, request);
      latencies.push(performance.now() - started);
      if (result.statusCode !== 200) throw new Error(`unexpected status ${result.statusCode}`);
    }
  };

  // Warm up: the first requests pay for module loading, key imports and connection set-up.
  await run(await prepare(50));
  const { calls } = await countingStoreCalls(async () => run(await prepare(1)));

  const prepared = await prepare(requests);
  const latencies: number[] = [];
  const profiler = options.profilePath ? await startProfiler() : undefined;
  const serverCpu = await cpuMs(() => run(prepared, latencies));
  if (profiler && options.profilePath)
    await writeFile(options.profilePath, JSON.stringify(await profiler.stop()));

  // The same handler with the store's answers to one real request replayed from memory to the others.
  const [recorded, ...replayBatch] = await prepare(requests + 1);
  const recording = await recordStoreAnswers();
  let withoutStoreIo: number;
  try {
    await run([recorded as PreparedRequest]);
    recording.replay();
    withoutStoreIo = await cpuMs(() => run(replayBatch));
  } finally {
    recording.restore();
  }

  // The same run's unavoidable crypto: one RSA verify, one JWE decrypt, one JWE encrypt, one RS512 sign.
  const organizationPublic = createPublicKey(environment.organizationPem);
  const caller = { publicKey: organizationPublic, kid: keyId(organizationPublic) };
  const plaintext = new TextEncoder().encode('[]');
  const cryptoCpu = await unavoidableCryptoMs(
    await currentApiKey(environment.apiKeysFile),
    prepared.map((request) => ({
      token: (request.headers.authorization as string).split(' ')[1] as string,
      caller,
      body: request.body,
      response: plaintext,
      status: 200,
    })),
  );

  // The store calls the pipeline makes for this request: the issuer's keys, then the jti record.
  const { listEntityKeys } = await import('#shared/store/entity-keys');
  const { recordJti } = await import('#shared/store/jti');
  const entity = { type: 'org', id: environment.organizationId } as const;
  const storeCpu = await cpuMs(async () => {
    for (let i = 0; i < requests; i++) {
      await listEntityKeys(entity);
      await recordJti(
        entity,
        randomUUID(),
        Math.floor(Date.now() / 1000) + 60,
        Math.floor(Date.now() / 1000),
      );
    }
  });

  const server = serverCpu / requests;
  const crypto = cryptoCpu / requests;
  const store = storeCpu / requests;
  const pipelineOnly = withoutStoreIo / requests;
  return {
    requests,
    serverCpuMsPerRequest: round(server),
    cryptoCpuMsPerRequest: round(crypto),
    storeClientCpuMsPerRequest: round(store),
    ratioToCrypto: round(server / crypto, 2),
    ratioToCryptoExcludingStoreClient: round((server - store) / crypto, 2),
    storeRoundTripsPerRequest: totalCalls(calls),
    pipelineCpuMsPerRequestWithoutStoreIo: round(pipelineOnly),
    pipelineRatioToCrypto: round(pipelineOnly / crypto, 2),
    latencyMs: { median: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    requestsPerSecond: Math.round(requests / (latencies.reduce((sum, ms) => sum + ms, 0) / 1000)),
  };
}

/** A V8 CPU profile of what runs between start and stop, for `npm run bench -- --profile`. */
export async function startProfiler(): Promise<{ stop(): Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}
