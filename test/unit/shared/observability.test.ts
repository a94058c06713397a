import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '#infra/local/lambda-context';
import type { HttpEvent } from '#shared/http/event';
import { toHttpEvent, unsignedRequest } from '#test/support/events';

// Logs and metrics on, as in Lambda; set before the modules that read them load.
vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');

let publicHandler: typeof import('#shared/http/public-handler').publicHandler;
let json: typeof import('#shared/http/public-handler').json;
let logger: typeof import('#shared/log').logger;
let countMetric: typeof import('#shared/metrics').countMetric;
let notFound: typeof import('#shared/errors').notFound;

beforeAll(async () => {
  ({ publicHandler, json } = await import('#shared/http/public-handler'));
  ({ logger } = await import('#shared/log'));
  ({ countMetric } = await import('#shared/metrics'));
  ({ notFound } = await import('#shared/errors'));
});

afterEach(() => vi.restoreAllMocks());

const context = lambdaContext('service-get-thing', 10_000, 'lambda-request-id');

/** A request of a public route, as the handlers below receive it. */
const thing = unsignedRequest('/public/v3/thing', { headers: { host: 'api.example.com' } });
const event = (requestId: string): HttpEvent => toHttpEvent(thing, requestId);

/** Every JSON line the handler writes (logs and embedded metric format) while it runs. */
async function linesOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  await run();
  vi.restoreAllMocks();
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const metricLines = (lines: Record<string, unknown>[]) => lines.filter((line) => '_aws' in line);
/** Every metric line of the file's invocations, in order: the first is a cold start, the others not. */
const published: Record<string, unknown>[] = [];

describe('every handler', () => {
  it("logs each line with the API Gateway request id, and not the previous request's", async () => {
    const handler = publicHandler(async () => {
      logger.info('Handled');
      return json(200, {});
    });
    const first = await linesOf(() => handler(event('request-one'), context));
    const second = await linesOf(() => handler(event('request-two'), context));
    published.push(...metricLines(first), ...metricLines(second));
    expect(first.filter((line) => line.message === 'Handled')).toEqual([
      expect.objectContaining({ correlation_id: 'request-one', function_request_id: 'lambda-request-id' }),
    ]);
    expect(second.filter((line) => line.message === 'Handled')).toEqual([
      expect.objectContaining({ correlation_id: 'request-two' }),
    ]);
  });

  it('publishes what it counted when it fails after counting, nothing when it counted nothing, and one cold start', async () => {
    const failing = publicHandler(async () => {
      countMetric('AuthRequestsCreated');
      throw notFound('no such thing');
    });
    const lines = await linesOf(async () => {
      const response = (await failing(event('request-three'), context)) as { statusCode: number };
      expect(response.statusCode).toBe(404);
    });
    const metrics = metricLines(lines);
    expect(metrics.filter((line) => line.AuthRequestsCreated === 1)).toHaveLength(1);
    published.push(...metrics);

    const quiet = publicHandler(async () => json(200, {}));
    const later = await linesOf(() => quiet(event('request-four'), context));
    // Nothing counted: no metric line and no warning about it.
    expect(metricLines(later)).toEqual([]);
    expect(later.filter((line) => line.level === 'WARN')).toEqual([]);
    expect(published.filter((line) => line.ColdStart === 1)).toEqual([
      expect.objectContaining({ function_name: 'service-get-thing' }),
    ]);
  });
});
