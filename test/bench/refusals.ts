import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { PreparedRequest } from '#shared/client/api-client';
import { originSecretsVariable } from '#shared/http/middlewares/edge-origin';
import { currentApiKey } from '#test/bench/crypto-cost';
import type { BenchEnvironment, Handler } from '#test/bench/environment';
import { cpuMs, round } from '#test/bench/stats';
import { countingStoreCalls, totalCalls } from '#test/bench/store-calls';

/** One kind of request a signed route answers, and what it costs the server. */
export interface RefusalFigures {
  readonly status: number;
  readonly errorCode?: string;
  readonly serverCpuMsPerRequest: number;
  /** Its CPU over a successful signed read's. */
  readonly ratioToSignedRead: number;
  readonly storeRoundTrips: number;
}

export interface RefusalsFigures {
  readonly requests: number;
  readonly kinds: Readonly<Record<RefusalKind, RefusalFigures>>;
  /** The RS512 signature of one response JWT with the API key: what every answer of a signed route pays. */
  readonly responseSignatureCpuMs: number;
}

export const refusalKinds = [
  'signed read (200)',
  'unknown key (401)',
  'bad signature, real key (401)',
  'not a JWT (401)',
  'oversized header (401)',
  'no origin secret (403)',
] as const;
export type RefusalKind = (typeof refusalKinds)[number];

/** Just under API Gateway's 10 KB of request headers. */
const oversizedHeaderBytes = 9_000;

/**
 * The CPU of refusing a signed route's requests, in-process like the pipeline section, next to a successful signed
 * read (GET /organization/v3/directories): a JWT signed by a key the issuer does not have, a real key's JWT whose
 * signature was changed, an Authorization header that is not a JWT at all, an oversized one, and (behind CloudFront)
 * a request without the origin secret.
 */
export async function benchRefusals(
  environment: BenchEnvironment,
  requests: number,
): Promise<RefusalsFigures> {
  const { handler } = (await import('#functions/organization/list-directories')) as { handler: Handler };
  const client = environment.client();
  const strangerPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  const stranger = environment.client({ privateKeyPem: strangerPem });
  const read = () => client.prepare('GET', '/organization/v3/directories');
  const withAuthorization = (request: PreparedRequest, authorization: string): PreparedRequest => ({
    ...request,
    headers: { ...request.headers, authorization },
  });

  const makers: Record<RefusalKind, () => Promise<PreparedRequest>> = {
    'signed read (200)': read,
    'unknown key (401)': () => stranger.prepare('GET', '/organization/v3/directories'),
    'bad signature, real key (401)': async () => {
      const request = await read();
      const [scheme, token] = (request.headers.authorization as string).split(' ') as [string, string];
      const [header, payload, signature] = token.split('.') as [string, string, string];
      // Another signature of the same length: the JWT parses, names the real key, and fails only its verification.
      const altered = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
      return withAuthorization(request, `${scheme} ${header}.${payload}.${altered}`);
    },
    'not a JWT (401)': async () => withAuthorization(await read(), 'IOV-JWT not-a-jwt'),
    'oversized header (401)': async () =>
      withAuthorization(await read(), `IOV-JWT ${'a'.repeat(oversizedHeaderBytes)}`),
    'no origin secret (403)': read,
  };

  const kinds = {} as Record<RefusalKind, RefusalFigures>;
  let readCpu = Number.NaN;
  for (const kind of refusalKinds) {
    const behindEdge = kind === 'no origin secret (403)';
    if (behindEdge) process.env[originSecretsVariable] = randomUUID();
    try {
      const prepare = async (count: number) => {
        const batch: PreparedRequest[] = [];
        for (let i = 0; i < count; i++) batch.push(await makers[kind]());
        return batch;
      };
      const statuses = new Set<number>();
      let errorCode: string | undefined;
      const run = async (batch: PreparedRequest[]) => {
        for (const request of batch) {
          const result = await environment.invoke(handler, request);
          statuses.add(result.statusCode ?? 0);
          if (result.statusCode !== 200 && typeof result.body === 'string' && result.body.startsWith('{')) {
            errorCode = (JSON.parse(result.body) as { error_code?: string }).error_code;
          }
        }
      };
      // Warm up: module loading, key imports, connections.
      await run(await prepare(20));
      const { calls } = await countingStoreCalls(async () => run(await prepare(1)));
      const batch = await prepare(requests);
      const cpu = (await cpuMs(() => run(batch))) / requests;
      if (statuses.size !== 1) throw new Error(`${kind}: mixed statuses ${[...statuses].join(', ')}`);
      if (kind === 'signed read (200)') readCpu = cpu;
      kinds[kind] = {
        status: [...statuses][0] as number,
        ...(errorCode ? { errorCode } : {}),
        serverCpuMsPerRequest: round(cpu),
        ratioToSignedRead: round(cpu / readCpu, 2),
        storeRoundTrips: totalCalls(calls),
      };
    } finally {
      if (behindEdge) delete process.env[originSecretsVariable];
    }
  }

  const apiKey = await currentApiKey(environment.apiKeysFile);
  const signatureCpu = await cpuMs(async () => {
    for (let i = 0; i < requests; i++) {
      await new SignJWT({ iss: 'lka', aud: 'caller', jti: randomUUID(), response: { status: 401 } })
        .setProtectedHeader({ alg: 'RS512', kid: apiKey.kid })
        .sign(apiKey.privateKey);
    }
  });
  return { requests, kinds, responseSignatureCpuMs: round(signatureCpu / requests) };
}
