import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AssemblyStack, readCloudAssembly } from '#infra/assembly/cloud-assembly';
import { machineLambdaNode } from '#infra/assembly/lambda-node';
import { LocalDeployment } from '#infra/assembly/local-deployment';
import type { AssemblyRuntime } from '#infra/assembly/runtime';
import { engineClientConfig } from '#infra/local/engines';
import { localTableName } from '#infra/local/runtime';
import { type TinyFunction, writeTinyAssembly } from '#test/support/tiny-assembly';

/**
 * The assembly runner against a cloud assembly written by hand: what it does is what Lambda, API Gateway, CloudFront,
 * SQS's event source mapping and CloudFormation do, on this machine's Node with the project's own runtime client
 * (`npm run test:assembly` runs the service's real assembly on Lambda's Node and runtime client).
 */

let scratch: string;
let assembly: string;
let dataDir: string;
let journal: string;
let runtime: AssemblyRuntime;

/** A handler that appends a line to the journal, for what the test cannot see otherwise. */
const journaling = (body: string): TinyFunction => ({
  source: `import { appendFileSync } from 'node:fs';
const note = (line) => appendFileSync(process.env.JOURNAL, line + '\\n');
${body}`,
});

const echoVariables = [
  'TABLE_NAME',
  'QUEUE_URL',
  'ORIGIN_VERIFY_SECRETS',
  'PUBLIC_BASE_URL',
  'WIDGET',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  '_X_AMZN_TRACE_ID',
  'LAMBDA_TASK_ROOT',
  'RUNNER_ONLY',
];
const echo: TinyFunction = {
  source: `export const handler = async (event, context) => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    env: Object.fromEntries(${JSON.stringify(echoVariables)}.map((name) => [name, process.env[name] ?? null])),
    headers: event.headers,
    routeKey: event.routeKey,
    pathParameters: event.pathParameters ?? null,
    remainingMs: context.getRemainingTimeInMillis(),
    pid: process.pid,
    cwd: process.cwd(),
  }),
});`,
};

async function writeAssembly(
  customResource?: Record<string, unknown>,
  extra: Record<string, TinyFunction> = {},
) {
  await rm(assembly, { recursive: true, force: true });
  await writeTinyAssembly(assembly, {
    routes: {
      'GET /echo': echo,
      'GET /items/{id}': echo,
      $default: { source: 'export const handler = async () => ({ fallback: true });' },
      'GET /slow': {
        timeoutSeconds: 1,
        source: `export const handler = async (event) => {
  if (event.rawQueryString !== 'quick') await new Promise((resolve) => setTimeout(resolve, 5000));
  return { statusCode: 200, body: String(process.pid) };
};`,
      },
      'GET /crash': { source: 'export const handler = async () => process.exit(3);' },
      'GET /broken': { source: "throw new Error('broken at import');" },
      ...extra,
    },
    consumer: {
      ...journaling(`export const handler = async (event) => {
  const failed = [];
  for (const record of event.Records) {
    note('consumed ' + record.body);
    if (record.body === 'fail') failed.push({ itemIdentifier: record.messageId });
  }
  return { batchItemFailures: failed };
};`),
      environment: { JOURNAL: journal },
    },
    onEvent: {
      ...journaling(`export const handler = async (event) => {
  note(event.RequestType + ' ' + event.ResourceProperties.Name + (event.OldResourceProperties ? ' from ' + event.OldResourceProperties.Name : '') + (event.PhysicalResourceId ? ' ' + event.PhysicalResourceId : ''));
  return { PhysicalResourceId: 'widget-' + event.ResourceProperties.Name, Data: { Value: 'value-' + event.ResourceProperties.Name } };
};`),
      environment: { JOURNAL: journal },
    },
    ...(customResource ? { customResource } : {}),
  });
}

async function deploy(customResource?: Record<string, unknown>) {
  await writeAssembly(customResource);
  const { startAssemblyRuntime } = await import('#infra/assembly/runtime');
  return startAssemblyRuntime({
    dataDir,
    port: 0,
    cloudAssembly: assembly,
    lambdaNode: await machineLambdaNode(),
  });
}

const journalLines = async () => (await readFile(journal, 'utf8').catch(() => '')).trim().split('\n');

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mfa-assembly-'));
  vi.stubEnv('LAMBDA_RUNTIME_CACHE', join(scratch, 'cache'));
  vi.stubEnv('RUNNER_ONLY', 'the runner process has this; no function may');
  assembly = join(scratch, 'cdk.out');
  dataDir = join(scratch, 'data');
  journal = join(scratch, 'journal.txt');
  runtime = await deploy({ Name: 'first' });
});
afterAll(async () => {
  await runtime?.stop();
  vi.unstubAllEnvs();
  await rm(scratch, { recursive: true, force: true });
});

const get = async (path: string) => {
  const response = await fetch(`${runtime.baseUrl}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
type Echo = {
  env: Record<string, string | null>;
  headers: Record<string, string>;
  routeKey: string;
  pathParameters: Record<string, string> | null;
  remainingMs: number;
  pid: number;
  cwd: string;
};

describe('a function of the assembly', () => {
  it("gets exactly its template's environment, resolved, and Lambda's own variables, nothing of the runner's", async () => {
    const { status, body } = await get('/echo');
    expect(status).toBe(200);
    const { env, cwd } = body as unknown as Echo;
    expect(env).toMatchObject({
      TABLE_NAME: localTableName,
      QUEUE_URL: runtime.queues.queueUrl,
      ORIGIN_VERIFY_SECRETS: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      // CloudFront's address, which the stack's BaseUrl output names too.
      PUBLIC_BASE_URL: runtime.baseUrl,
      WIDGET: 'value-first',
      AWS_EXECUTION_ENV: expect.stringMatching(/^AWS_Lambda_nodejs\d+\.x$/),
      AWS_LAMBDA_FUNCTION_NAME: expect.stringContaining('GETechoFunction'),
      _X_AMZN_TRACE_ID: expect.stringMatching(
        /^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=1$/,
      ),
      RUNNER_ONLY: null,
    });
    expect(runtime.baseUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(env.LAMBDA_TASK_ROOT).toBe(join(assembly, 'asset.GETechoFunction'));
    expect(cwd).toBe(env.LAMBDA_TASK_ROOT);
  });

  it('gets requests as CloudFront and API Gateway hand them over, the origin secret included', async () => {
    const { body } = await get('/items/two%20words');
    const { env, headers, routeKey, pathParameters, remainingMs } = body as unknown as Echo;
    expect(routeKey).toBe('GET /items/{id}');
    expect(pathParameters).toEqual({ id: 'two words' });
    expect(headers['x-origin-verify']).toBe(env.ORIGIN_VERIFY_SECRETS);
    expect(headers.host).toMatch(/^[0-9a-f]{10}\.execute-api\.us-east-1\.amazonaws\.com$/);
    expect(headers['cloudfront-viewer-address']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(headers['x-forwarded-proto']).toBe('https');
    expect(remainingMs).toBeGreaterThan(0);
    expect(remainingMs).toBeLessThanOrEqual(5000);
  });

  it('is kept warm between invocations, and each invocation is traced, the first as a cold start', async () => {
    const first = ((await get('/echo')).body as unknown as Echo).pid;
    const second = ((await get('/echo')).body as unknown as Echo).pid;
    expect(second).toBe(first);
    const segments = (await readFile(runtime.xraySegments, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; origin?: string; aws?: { cold_start?: boolean } })
      .filter(
        (segment) => segment.origin === 'AWS::Lambda::Function' && segment.name.includes('GETechoFunction'),
      );
    expect(segments.length).toBeGreaterThanOrEqual(3);
    expect(segments.filter((segment) => segment.aws?.cold_start)).toHaveLength(1);
  });

  it('ends its idle environments on demand, and the next invocation starts cold, its init measured', async () => {
    const pool = await runtime.deployment.pool('GETechoFunction');
    await get('/echo');
    const warm = ((await get('/echo')).body as unknown as Echo).pid;
    expect(pool.lastInvocation).toMatchObject({ coldStart: false });
    await pool.endIdleEnvironments();
    expect(pool.environments).toEqual([]);
    const cold = ((await get('/echo')).body as unknown as Echo).pid;
    expect(cold).not.toBe(warm);
    const stats = pool.lastInvocation;
    expect(stats).toMatchObject({ coldStart: true, initMs: expect.any(Number) });
    expect(stats?.durationMs).toBeGreaterThanOrEqual(stats?.initMs ?? Infinity);
  });

  it("answers 200 JSON for a result without a status code, as API Gateway's payload format 2.0 does", async () => {
    expect(await get('/nowhere')).toEqual({ status: 200, body: { fallback: true } });
  });

  it('is ended past its timeout, the caller gets 500, and the next invocation starts a new environment', async () => {
    const before = await fetch(`${runtime.baseUrl}/slow?quick`).then((response) => response.text());
    const started = Date.now();
    expect(await get('/slow')).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
    expect(Date.now() - started).toBeLessThan(4000);
    const after = await fetch(`${runtime.baseUrl}/slow?quick`).then((response) => response.text());
    expect(after).not.toBe(before);
    const log = await readFile(
      join(runtime.logDirectory, `${runtime.deployment.pools.get('GETslowFunction')?.definition.name}.log`),
      'utf8',
    );
    expect(log).toContain('Task timed out after 1.00 seconds');
  });

  it('that exits, or fails to load, is a 500, and says why in its log', async () => {
    expect(await get('/crash')).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
    expect(await get('/broken')).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
    const log = await readFile(
      join(runtime.logDirectory, `${runtime.deployment.pools.get('GETbrokenFunction')?.definition.name}.log`),
      'utf8',
    );
    expect(log).toContain('broken at import');
  });
});

describe("the assembly's queue mapping", () => {
  it('hands batches over, leaves failed items for another receive, and the redrive policy moves them to the dead letters', async () => {
    const sqs = new SQSClient(engineClientConfig(runtime.engines.sqsEndpoint));
    for (const body of ['ok-1', 'fail', 'ok-2'])
      await sqs.send(new SendMessageCommand({ QueueUrl: runtime.queues.queueUrl, MessageBody: body }));
    const dead = await vi.waitFor(
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: runtime.queues.deadLetterQueueUrl, WaitTimeSeconds: 0 }),
        );
        if (Messages.length === 0) throw new Error('nothing in the dead letters yet');
        return Messages.map((message) => message.Body);
      },
      { timeout: 30_000, interval: 200 },
    );
    sqs.destroy();
    expect(dead).toEqual(['fail']);
    // The second invocation with the failing item may still be writing its line when the redrive has moved it.
    const consumed = await vi.waitFor(
      async () => {
        const lines = (await journalLines()).filter((line) => line.startsWith('consumed '));
        expect(lines.filter((line) => line === 'consumed fail')).toHaveLength(2);
        return lines;
      },
      { timeout: 10_000, interval: 200 },
    );
    expect(consumed.filter((line) => line === 'consumed ok-1')).toHaveLength(1);
    expect(consumed.filter((line) => line === 'consumed ok-2')).toHaveLength(1);
  });
});

describe("the assembly's custom resource, across deployments", () => {
  /** Deploys the tiny assembly's stack with these custom resource properties to the runtime's own engines. */
  async function redeploy(
    customResource?: Record<string, unknown>,
    extra: Record<string, TinyFunction> = {},
  ) {
    await writeAssembly(customResource, extra);
    const [stack] = await readCloudAssembly(assembly);
    const deployment = await LocalDeployment.deploy(stack as AssemblyStack, {
      stacks: [stack as AssemblyStack],
      dataDir,
      engines: runtime.engines,
      edgeUrl: runtime.baseUrl,
      namedByOutput: {},
      keyFilesByProperty: {},
      pool: {
        lambdaNode: runtime.lambdaNode,
        xrayDaemonAddress: '127.0.0.1:9',
        recordSegment: () => undefined,
        logDirectory: runtime.logDirectory,
      },
      log: () => undefined,
    });
    return deployment;
  }
  const widgetEvents = async () =>
    (await journalLines()).filter((line) => /^(Create|Update|Delete) /.test(line));

  it('is created once, updated when its properties change (the old one deleted when replaced), and deleted when gone', async () => {
    expect(await widgetEvents()).toEqual(['Create first']);
    await (await redeploy({ Name: 'first' })).stop();
    expect(await widgetEvents()).toEqual(['Create first']);

    const second = await redeploy({ Name: 'second' });
    expect(await widgetEvents()).toEqual([
      'Create first',
      'Update second from first widget-first',
      'Delete first widget-first',
    ]);
    expect(
      (await second.allFunctions()).find((fn) => fn.logicalId === 'GETechoFunction')?.environment.WIDGET,
    ).toBe('value-second');
    await second.stop();

    await (await redeploy()).stop();
    expect((await widgetEvents()).at(-1)).toBe('Delete second widget-second');
  });

  it("refuses a function whose environment is over Lambda's 4 KB, as Lambda does", async () => {
    const deployment = await redeploy(undefined, {
      'GET /big': { ...echo, environment: { BIG: 'x'.repeat(4100) } },
    });
    await expect(deployment.allFunctions()).rejects.toThrow(
      /environment is \d+ bytes; Lambda refuses more than 4096/,
    );
    await deployment.stop();
  });
});
