import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { CompactEncrypt, compactDecrypt, jwtVerify, SignJWT } from 'jose';
import type { PreparedRequest } from '#shared/client/api-client';
import { keyId } from '#shared/protocol/kid';
import type { BenchEnvironment, Handler } from '#test/bench/environment';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { countingStoreCalls, replayingStoreAnswers, totalCalls } from '#test/bench/store-calls';

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

  const replayBatch = await prepare(requests);
  const withoutStoreIo = await replayingStoreAnswers(() => cpuMs(() => run(replayBatch)));

  // The same run's unavoidable crypto: one RSA verify, one JWE decrypt, one JWE encrypt, one RS512 sign.
  const ring = JSON.parse(await readFile(environment.apiKeysFile, 'utf8')) as {
    current: string;
    keys: { kid: string; privateKey: string }[];
  };
  const apiPrivate = createPrivateKey(
    ring.keys.find((key) => key.kid === ring.current)?.privateKey as string,
  );
  const organizationPublic = createPublicKey(environment.organizationPem);
  const organizationKid = keyId(organizationPublic);
  const tokens = prepared.map((request) => (request.headers.authorization as string).split(' ')[1] as string);
  const bodies = prepared.map((request) => request.body as string);
  const plaintext = new TextEncoder().encode('[]');
  const cryptoCpu = await cpuMs(async () => {
    for (let i = 0; i < requests; i++) {
      await jwtVerify(tokens[i] as string, organizationPublic, { audience: 'lka', clockTolerance: 30 });
      await compactDecrypt(bodies[i] as string, apiPrivate);
      await new CompactEncrypt(plaintext)
        .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: organizationKid })
        .encrypt(organizationPublic);
      await new SignJWT({ iss: 'lka', aud: environment.issuer, jti: randomUUID(), response: { status: 200 } })
        .setProtectedHeader({ alg: 'RS512', kid: ring.current })
        .sign(apiPrivate);
    }
  });

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
  };
}

/** A V8 CPU profile of what runs between start and stop, for `npm run bench -- --profile`. */
async function startProfiler(): Promise<{ stop(): Promise<unknown> }> {
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
