import { fork } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactEncrypt, compactDecrypt, jwtVerify, SignJWT } from 'jose';
import { lambdaContext } from '#infra/local/lambda-context';
import { ensureTable } from '#infra/local/provision';
import { ApiClient, type PreparedRequest } from '#shared/client/api-client';
import type { SignedContext } from '#shared/http/signed-state';
import { keyId } from '#shared/protocol/kid';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { toHttpEvent } from '#test/support/events';
import { projectRoot } from '#test/support/service-process';

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
  requests: number,
  options: { apiKeyBits?: 2048 | 3072 | 4096; profilePath?: string } = {},
): Promise<PipelineFigures> {
  const apiKeyBits = options.apiKeyBits ?? 2048;
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-'));
  const engines = fork(join(projectRoot, 'test/bench/engines-process.ts'), [dataDir], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  try {
    const { dynamoEndpoint } = await new Promise<{ dynamoEndpoint: string }>((resolve) =>
      engines.once('message', resolve as never),
    );
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: 'bench',
      API_KEYS_FILE: join(dataDir, 'api-keys.json'),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    await ensureTable(dynamoEndpoint, 'bench');
    const { ensureApiKeys, ensureDemoOrganization } = await import('#infra/local/bootstrap');
    await ensureApiKeys(dataDir, apiKeyBits);
    const organization = await ensureDemoOrganization(dataDir);
    const organizationPem = await readFile(organization.privateKeyPath, 'utf8');
    const issuer = `org:${organization.organizationId}`;

    // The client's API key comes straight from the store here: there is no HTTP server in this measurement.
    const { getCurrentApiPublicKey } = await import('#shared/store/api-keys');
    const apiPublic = await getCurrentApiPublicKey();
    if (!apiPublic) throw new Error('no API key');
    const client = new ApiClient({
      baseUrl: 'http://unused.invalid',
      issuer,
      privateKeyPem: organizationPem,
      tokenLifetimeSeconds: 60,
      fetch: async (url) => {
        if (requestUrl(url).endsWith('/public/v3/ping'))
          return Response.json({ api_time: new Date().toISOString() });
        return new Response(apiPublic.publicKeyPem, { headers: { 'x-iov-key-id': apiPublic.kid } });
      },
    });
    const { handler } = await import('#functions/organization/list-directories-by-ids');

    const prepare = async () => {
      const prepared: PreparedRequest[] = [];
      for (let i = 0; i < requests; i++) {
        prepared.push(
          await client.prepare('POST', '/organization/v3/directories/list', { body: { directory_ids: [] } }),
        );
      }
      return prepared;
    };

    // Warm up: the first requests pay for module loading, key imports and connection set-up.
    for (const request of (await prepare()).slice(0, 50))
      await handler(toHttpEvent(request), lambdaContext('bench', 10_000) as SignedContext);

    const prepared = await prepare();
    const events = prepared.map(toHttpEvent);
    const latencies: number[] = [];
    let statuses = new Set<number>();
    const profiler = options.profilePath ? await startProfiler() : undefined;
    const serverCpu = await cpuMs(async () => {
      for (const event of events) {
        const started = performance.now();
        const result = await handler(event, lambdaContext('bench', 10_000) as SignedContext);
        latencies.push(performance.now() - started);
        statuses = statuses.add(result.statusCode ?? 0);
      }
    });
    if (profiler && options.profilePath)
      await writeFile(options.profilePath, JSON.stringify(await profiler.stop()));

    const withoutStoreIo = await replayingStoreAnswers(async () => {
      const replayEvents = (await prepare()).map(toHttpEvent);
      return cpuMs(async () => {
        for (const event of replayEvents) {
          const result = await handler(event, lambdaContext('bench', 10_000) as SignedContext);
          if (result.statusCode !== 200) throw new Error(`unexpected status ${result.statusCode}`);
        }
      });
    });
    if (statuses.size !== 1 || !statuses.has(200))
      throw new Error(`unexpected statuses ${[...statuses].join(', ')}`);

    // The same run's unavoidable crypto: one RSA verify, one JWE decrypt, one JWE encrypt, one RS512 sign.
    const ringDocument = JSON.parse(await readFile(join(dataDir, 'api-keys.json'), 'utf8')) as {
      current: string;
      keys: { kid: string; privateKey: string }[];
    };
    const apiPrivate = createPrivateKey(
      ringDocument.keys.find((key) => key.kid === ringDocument.current)?.privateKey as string,
    );
    const organizationPublic = createPublicKey(organizationPem);
    const organizationKid = keyId(organizationPublic);
    const tokens = prepared.map(
      (request) => (request.headers.authorization as string).split(' ')[1] as string,
    );
    const bodies = prepared.map((request) => request.body as string);
    const plaintext = new TextEncoder().encode('[]');
    const cryptoCpu = await cpuMs(async () => {
      for (let i = 0; i < requests; i++) {
        await jwtVerify(tokens[i] as string, organizationPublic, { audience: 'lka', clockTolerance: 30 });
        await compactDecrypt(bodies[i] as string, apiPrivate);
        await new CompactEncrypt(plaintext)
          .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: organizationKid })
          .encrypt(organizationPublic);
        await new SignJWT({ iss: 'lka', aud: issuer, jti: randomUUID(), response: { status: 200 } })
          .setProtectedHeader({ alg: 'RS512', kid: ringDocument.current })
          .sign(apiPrivate);
      }
    });

    // The store calls the pipeline makes for this request: the issuer's keys, then the jti record.
    const { listEntityKeys } = await import('#shared/store/entity-keys');
    const { recordJti } = await import('#shared/store/jti');
    const entity = { type: 'org', id: organization.organizationId } as const;
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
      storeRoundTripsPerRequest: 2,
      pipelineCpuMsPerRequestWithoutStoreIo: round(pipelineOnly),
      pipelineRatioToCrypto: round(pipelineOnly / crypto, 2),
      latencyMs: { median: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    };
  } finally {
    engines.disconnect();
    await new Promise((resolve) => engines.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
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

/**
 * Runs `measure` while the store client answers each kind of command with the first real answer it got for it, so the
 * pipeline's own cost can be told apart from the store client's. Correct for this request shape only: the issuer's
 * keys never change and every jti is new.
 */
async function replayingStoreAnswers<T>(measure: () => Promise<T>): Promise<T> {
  const { dynamo } = await import('#shared/store/dynamo');
  const send = dynamo.send.bind(dynamo);
  const answers = new Map<string, unknown>();
  const replaying = async (command: { constructor: { name: string } }) => {
    const name = command.constructor.name;
    if (!answers.has(name)) answers.set(name, await send(command as never));
    return answers.get(name);
  };
  (dynamo as unknown as { send: typeof replaying }).send = replaying;
  try {
    return await measure();
  } finally {
    (dynamo as unknown as { send: typeof send }).send = send;
  }
}

function requestUrl(input: string | URL | Request): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}
