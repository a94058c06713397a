import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '#infra/local/lambda-context';
import { toHttpEvent, unsignedRequest } from '#test/support/events';

/** An X-Ray document as the daemon receives it. */
interface TraceDocument {
  readonly name: string;
  readonly id: string;
  readonly trace_id: string;
  readonly parent_id?: string;
  readonly annotations?: Record<string, unknown>;
  readonly aws?: { readonly operation?: string };
}

// A stand-in for the X-Ray daemon Lambda runs beside a traced function: every document the tracer sends, in order.
const daemon = createSocket('udp4');
const received: TraceDocument[] = [];
daemon.on('message', (message) => {
  // A header line, then the document.
  received.push(JSON.parse(message.toString('utf8').split('\n')[1] ?? '{}') as TraceDocument);
});

let publicHandler: typeof import('#shared/http/public-handler').publicHandler;
let json: typeof import('#shared/http/public-handler').json;
let traced: typeof import('#shared/tracing').traced;
let logger: typeof import('#shared/log').logger;

beforeAll(async () => {
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  // Lambda's environment for a traced function, as the X-Ray SDK and Powertools read it when they load.
  vi.stubEnv('AWS_XRAY_DAEMON_ADDRESS', `127.0.0.1:${daemon.address().port}`);
  vi.stubEnv('LAMBDA_TASK_ROOT', '/var/task');
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
  vi.stubEnv('_HANDLER', 'index.handler');
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
  vi.stubEnv('TABLE_NAME', 'table');
  ({ publicHandler, json } = await import('#shared/http/public-handler'));
  ({ traced } = await import('#shared/tracing'));
  ({ logger } = await import('#shared/log'));
});

afterAll(() => {
  vi.unstubAllEnvs();
  daemon.close();
});

const context = lambdaContext('public-get-thing', 10_000, 'lambda-request-id');

/** A request of a public route, as the handlers below receive it. */
const thing = unsignedRequest('/public/v3/thing', { headers: { host: 'api.example.com' } });
const event = toHttpEvent(thing, 'api-request-id');

/** Client settings whose requests never leave the process: each gets `answer`'s body for the request's body. */
const inProcess = (answer: (body: string) => object = () => ({})) => ({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  requestHandler: {
    handle: async (request: { body?: string | Uint8Array }) => {
      const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
      return {
        response: {
          statusCode: 200,
          headers: {},
          body: Readable.from([Buffer.from(JSON.stringify(answer(body)))]),
        },
      };
    },
  },
});

/** A DynamoDB client whose requests never leave the process: every call finds no item. */
function tableClient() {
  return new DynamoDBClient(inProcess());
}

/** SQS answers a send with the MD5 of the body it took, which the SDK checks. */
const sentMessage = (body: string) => ({
  MessageId: crypto.randomUUID(),
  MD5OfMessageBody: createHash('md5')
    .update((JSON.parse(body) as { MessageBody: string }).MessageBody)
    .digest('hex'),
});

/** A handler on the service's pipeline that reads one item with `client`. */
const readingWith = (client: DynamoDBClient) =>
  publicHandler(async () => {
    await client.send(new GetItemCommand({ TableName: 'table', Key: { pk: { S: 'thing' } } }));
    return json(200, {});
  });

/** Invokes as Lambda does, under the trace id Lambda gives the invocation. */
async function invoke(handler: ReturnType<typeof readingWith>, root: string) {
  vi.stubEnv('_X_AMZN_TRACE_ID', `Root=${root};Parent=53995c3f42cd8ad8;Sampled=1`);
  return (await handler(event, context)) as { statusCode: number };
}

/** The invocation's documents once its handler's segment has arrived: that segment and its AWS calls. */
async function traceOf(root: string) {
  const handlerSegment = await vi.waitFor(() => {
    const found = received.find(
      (document) => document.trace_id === root && document.name === '## index.handler',
    );
    if (!found) throw new Error(`no handler segment for ${root} yet`);
    return found;
  });
  const calls = received.filter((document) => document.parent_id === handlerSegment.id);
  return { handlerSegment, calls };
}

const xraySdkLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('aws-xray-sdk-core'));

describe('the X-Ray tracer', () => {
  it('is never loaded by a function run without TRACER_MODULE, and its clients stay as they are', async () => {
    const client = traced(tableClient());
    const response = await invoke(readingWith(client), '1-5759e988-bd862e3fe1be46a994272790');
    expect(response.statusCode).toBe(200);
    expect(xraySdkLoaded()).toBe(false);
    expect(client.middlewareStack.identify().join()).not.toContain('XRay');
    expect(received).toEqual([]);
  });

  it('answers untraced, and says so, when the file TRACER_MODULE names does not load', async () => {
    vi.stubEnv('TRACER_MODULE', './no-such-tracer.mjs');
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const response = await invoke(readingWith(traced(tableClient())), '1-5759e988-bd862e3fe1be46a99427279f');
    expect(response.statusCode).toBe(200);
    expect(logged).toHaveBeenCalledWith(
      'The X-Ray tracer did not load; this invocation is not traced',
      expect.objectContaining({ module: './no-such-tracer.mjs' }),
    );
    logged.mockRestore();
    expect(received).toEqual([]);
  });

  it('with TRACER_MODULE, is loaded on the first invocation and traces the handler and the calls of registered clients', async () => {
    vi.stubEnv('TRACER_MODULE', '#shared/tracing-library');
    const early = traced(tableClient());
    const first = '1-5759e988-bd862e3fe1be46a994272791';
    expect((await invoke(readingWith(early), first)).statusCode).toBe(200);
    const { handlerSegment, calls } = await traceOf(first);
    expect(handlerSegment.annotations).toEqual({ ColdStart: true, Service: 'mfa-authorization' });
    expect(calls).toEqual([
      expect.objectContaining({ name: 'DynamoDB', aws: expect.objectContaining({ operation: 'GetItem' }) }),
    ]);

    // A client made once the tracer is loaded is traced from its first call; the next invocation is its own trace.
    const late = traced(tableClient());
    const second = '1-5759e988-bd862e3fe1be46a994272792';
    expect((await invoke(readingWith(late), second)).statusCode).toBe(200);
    const next = await traceOf(second);
    expect(next.handlerSegment.annotations).toEqual({ ColdStart: false, Service: 'mfa-authorization' });
    expect(next.calls).toEqual([expect.objectContaining({ name: 'DynamoDB', trace_id: second })]);
  });

  it("traces the store's and the queue's own clients, whose middleware the service trims, and their calls succeed", async () => {
    vi.stubEnv('TRACER_MODULE', '#shared/tracing-library');
    const { createDocumentClient } = await import('#shared/store/dynamo');
    const { createQueueClient } = await import('#shared/events/queue-client');
    const store = createDocumentClient({ config: inProcess() });
    const queue = createQueueClient(inProcess(sentMessage));
    const handler = publicHandler(async () => {
      await store.send(new GetCommand({ TableName: 'table', Key: { pk: 'thing', sk: 'thing' } }));
      await queue.send(
        new SendMessageCommand({ QueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/q', MessageBody: 'hi' }),
      );
      return json(200, {});
    });
    const root = '1-5759e988-bd862e3fe1be46a994272793';
    expect((await invoke(handler, root)).statusCode).toBe(200);
    const { calls } = await traceOf(root);
    expect(calls).toEqual([
      expect.objectContaining({ name: 'DynamoDB', aws: expect.objectContaining({ operation: 'GetItem' }) }),
      expect.objectContaining({ name: 'SQS', aws: expect.objectContaining({ operation: 'SendMessage' }) }),
    ]);
  });
});
