import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ApiClient } from '#shared/client/api-client';
import { startServiceProcess } from '#test/support/service-process';

export interface HttpFigures {
  readonly connections: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly median: number; readonly p99: number };
  readonly non2xx: number;
}

/**
 * Signed `GET /organization/v3/directories` against `npm start`'s runtime in its own process, driven by autocannon.
 * Every request needs its own jti, so the tokens are signed before the run, with a lifetime that covers it.
 */
export async function benchHttp(
  connectionCounts: readonly number[],
  requests: number,
): Promise<HttpFigures[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-http-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  try {
    const client = new ApiClient({
      baseUrl: service.baseUrl,
      issuer: `org:${service.organizationId}`,
      privateKeyPem: await readFile(service.privateKeyPath, 'utf8'),
      // Tokens are signed ahead of the run and must outlive it.
      tokenLifetimeSeconds: 60,
    });
    const figures: HttpFigures[] = [];
    for (const connections of connectionCounts) {
      const tokens: string[] = [];
      for (let i = 0; i < requests + connections; i++) {
        tokens.push(
          (await client.prepare('GET', '/organization/v3/directories')).headers.authorization as string,
        );
      }
      let next = 0;
      const result = await autocannon({
        url: service.baseUrl,
        connections,
        amount: requests,
        requests: [
          {
            method: 'GET',
            path: '/organization/v3/directories',
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, authorization: tokens[next++] as string },
            }),
          },
        ],
      });
      figures.push({
        connections,
        requests: result.requests.total,
        requestsPerSecond: Math.round(result.requests.average),
        latencyMs: { median: result.latency.p50, p99: result.latency.p99 },
        non2xx: result.non2xx,
      });
    }
    return figures;
  } finally {
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}
