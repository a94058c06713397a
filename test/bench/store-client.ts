import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import awsLite from '@aws-lite/client';
// @ts-expect-error -- the plugin ships no types of its own: @aws-lite/dynamodb-types types the methods it adds.
import awsLiteDynamoDB from '@aws-lite/dynamodb';
import type {} from '@aws-lite/dynamodb-types';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { FetchHttpHandler } from '@smithy/fetch-http-handler';
import { streamCollector } from '@smithy/node-http-handler';
import aws4 from 'aws4';
import {
  cachedDocumentClient,
  type DocumentCommand,
  documentOutput,
  lowLevelCommand,
} from '#shared/store/cached-document-client';
import { round } from '#test/bench/stats';
import { collectResponseBody, inRequestClientConfig } from '#shared/aws/in-request-client-config';

/** The store client's CPU per round trip the project aims for, in ms. */
export const storeClientTargetMs = 0.5;

/** The commands the endpoint classes send, in the shapes they send them. */
const commandNames = ['Get', 'BatchGet', 'Query', 'conditional Put', 'Update'] as const;
type CommandName = (typeof commandNames)[number];

type Sender = { send(command: never): Promise<unknown> };

interface Setup {
  readonly name: string;
  readonly make: () => Sender;
}

export interface StoreClientFigures {
  readonly sendsPerCommand: number;
  /** The mix's marshalling alone (@aws-sdk/util-dynamodb, inputs and answers), per round trip. */
  readonly marshallingCpuMsPerRoundTrip: number;
  /** Per setup: the client's CPU per round trip of each command and over the mix, and the mix's ratio to today's. */
  readonly setups: readonly {
    readonly name: string;
    readonly cpuMsPerRoundTrip: Readonly<Record<CommandName | 'mix', number>>;
    readonly ratioToToday: number;
  }[];
}

/** The transport's own floor: the requests the SDK signed once, sent again by node:http and their answers parsed. */
function rawHttp(
  config: DynamoDBClientConfig,
): Sender & { prepare(sender: Sender, command: unknown): Promise<void> } {
  const captured = new Map<
    string,
    { path: string; headers: Record<string, string>; body: string; port: number; hostname: string }
  >();
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  let capturing: string | undefined;
  const client = new DynamoDBClient(config);
  const capture = (next: (args: { request: unknown }) => unknown) => (args: { request: unknown }) => {
    const request = args.request as {
      path: string;
      headers: Record<string, string>;
      body: string | Uint8Array;
      port: number;
      hostname: string;
    };
    // The SDK's body is bytes; as text it can take a fresh jti.
    const body = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
    if (capturing) captured.set(capturing, { ...request, body });
    return next(args);
  };
  client.middlewareStack.addRelativeTo(capture as never, {
    relation: 'after',
    toMiddleware: 'httpSigningMiddleware',
    name: 'capture',
  });
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    async prepare(_sender, command) {
      capturing = (command as { constructor: { name: string } }).constructor.name;
      await documents.send(command as never);
      capturing = undefined;
    },
    send(command: never) {
      const name = (command as { constructor: { name: string } }).constructor.name;
      const request = captured.get(name) as NonNullable<ReturnType<typeof captured.get>>;
      const body =
        name === 'PutCommand' ? request.body.replace(/[0-9a-f-]{36}(?=")/, randomUUID()) : request.body;
      return new Promise((resolve, reject) => {
        const sent = httpRequest(
          {
            agent,
            method: 'POST',
            hostname: request.hostname,
            port: request.port,
            path: request.path,
            headers: request.headers,
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
            response.on('error', reject);
          },
        );
        sent.on('error', reject);
        sent.end(body);
      });
    },
  };
}

/**
 * Architect's aws-lite with its DynamoDB plugin, set up as the store module's client: endpoint, region and credentials
 * from the environment, a keep-alive agent, three attempts; it marshals the items itself (its copy of
 * util-dynamodb). It has no request timeout to set.
 */
function awsLiteClient(): Sender {
  const config: Parameters<typeof awsLite>[0] & { awsjsonMarshall: object } = {
    // aws-lite reads AWS_ENDPOINT_URL, not the SDK's per-service variable.
    endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    keepAlive: true,
    retries: 2,
    plugins: [awsLiteDynamoDB],
    awsjsonMarshall: { removeUndefinedValues: true },
  };
  const client = awsLite(config);
  return {
    async send(command: unknown) {
      const { DynamoDB } = await client;
      const { input } = command as { input: never };
      if (command instanceof GetCommand) return DynamoDB.GetItem(input);
      if (command instanceof BatchGetCommand) return DynamoDB.BatchGetItem(input);
      if (command instanceof QueryCommand) return DynamoDB.Query(input);
      if (command instanceof PutCommand) return DynamoDB.PutItem(input);
      if (command instanceof UpdateCommand) return DynamoDB.UpdateItem(input);
      throw new Error('not a command this bench sends');
    },
  };
}

/**
 * The thinnest client that still signs: aws4's SigV4 over node:http with a keep-alive agent, DynamoDB's JSON
 * protocol, items marshalled exactly as the store module's are (lowLevelCommand). It retries nothing; its one
 * timeout is the socket's, the store module's request timeout. An error answer becomes an error named as the SDK
 * names it.
 */
function signedHttp(): Sender {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const endpoint = new URL(
    process.env.AWS_ENDPOINT_URL_DYNAMODB ?? `https://dynamodb.${region}.amazonaws.com`,
  );
  const secure = endpoint.protocol === 'https:';
  const agent = new (secure ? HttpsAgent : Agent)({ keepAlive: true, maxSockets: 50 });
  // A function's credentials stay the same for its sandbox's life.
  const credentials = {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID,
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY,
    sessionToken: process.env.AWS_SESSION_TOKEN,
  };
  return {
    async send(command: unknown) {
      const lowLevel = lowLevelCommand(command as object, { removeUndefinedValues: true });
      const operation = lowLevel.constructor.name.replace(/Command$/, '');
      const signed = aws4.sign(
        {
          service: 'dynamodb',
          region,
          method: 'POST',
          path: '/',
          hostname: endpoint.hostname,
          ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `DynamoDB_20120810.${operation}`,
          },
          body: JSON.stringify(lowLevel.input),
        },
        credentials,
      );
      const { status, answer } = await new Promise<{ status: number; answer: Record<string, unknown> }>(
        (resolve, reject) => {
          const sent = (secure ? httpsRequest : httpRequest)(
            { ...signed, agent, timeout: 3_000 },
            (response) => {
              const chunks: Buffer[] = [];
              response.on('data', (chunk: Buffer) => chunks.push(chunk));
              response.on('end', () =>
                resolve({
                  status: response.statusCode ?? 0,
                  answer: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
                }),
              );
              response.on('error', reject);
            },
          );
          sent.on('timeout', () =>
            sent.destroy(
              Object.assign(new Error('The store did not answer in time'), { name: 'TimeoutError' }),
            ),
          );
          sent.on('error', reject);
          sent.end(signed.body);
        },
      );
      if (status !== 200) throw storeError(status, answer);
      return documentOutput(command as DocumentCommand<object>, answer);
    },
  };
}

/** DynamoDB's error answer as the SDK throws it: named after its type, with its message and cancellation reasons. */
function storeError(status: number, answer: Record<string, unknown>): Error {
  const { __type: type = '', message, Message } = answer as Record<string, string | undefined>;
  const error = Object.assign(new Error(message ?? Message ?? type), answer, {
    $fault: status >= 500 ? 'server' : 'client',
  });
  error.name = type.slice(type.lastIndexOf('#') + 1) || `HTTP ${status}`;
  return error;
}

const setups = (store: typeof import('#shared/store/dynamo')): Setup[] => {
  const { createDocumentClient } = store;
  // The store module's settings with the SDK's own body collector, as the store client had them.
  const todayConfig = (): DynamoDBClientConfig => ({ ...inRequestClientConfig(), streamCollector });
  // lib-dynamodb's client with the SDK's full middleware stack, as the store client had it, with other settings or
  // fewer middleware.
  const doc =
    (config: DynamoDBClientConfig, remove: string[] = []) =>
    () =>
      createDocumentClient({ config: { ...todayConfig(), ...config }, remove, sdkDocumentClient: true });
  return [
    { name: 'today', make: doc({}) },
    { name: 'chosen (the store module)', make: () => createDocumentClient() },
    {
      name: "lib-dynamodb's client, unused middleware removed",
      make: () => createDocumentClient({ config: todayConfig(), sdkDocumentClient: true }),
    },
    { name: 'body collected by data events', make: doc({ streamCollector: collectResponseBody }) },
    { name: 'account endpoints off', make: doc({ accountIdEndpointMode: 'disabled' }) },
    { name: 'endpoint discovery off', make: doc({ endpointDiscoveryEnabled: false }) },
    { name: 'retry mode adaptive', make: doc({ retryMode: 'adaptive' }) },
    {
      name: 'own keep-alive agent',
      make: doc({
        requestHandler: {
          connectionTimeout: 1_000,
          requestTimeout: 3_000,
          httpAgent: new Agent({ keepAlive: true, maxSockets: 50 }),
        },
      }),
    },
    { name: 'fetch handler', make: doc({ requestHandler: new FetchHttpHandler({ requestTimeout: 3_000 }) }) },
    { name: 'no logger middleware', make: doc({}, ['loggerMiddleware']) },
    { name: 'no user agent middleware', make: doc({}, ['getUserAgentMiddleware']) },
    { name: 'no recursion detection', make: doc({}, ['recursionDetectionMiddleware']) },
    {
      // The store module's way of sending, with the SDK's full stack, its body collector and none of the service's
      // own middleware.
      name: 'low-level, cached middleware, full stack',
      make: () =>
        cachedDocumentClient(new DynamoDBClient(todayConfig()), {
          marshall: { removeUndefinedValues: true },
        }),
    },
    { name: 'aws-lite (client + dynamodb plugin), no SDK', make: awsLiteClient },
    { name: 'aws4 + node:http, no SDK, no retries', make: signedHttp },
    { name: 'floor: node:http alone, no SDK', make: () => rawHttp(todayConfig()) },
  ];
};

/**
 * The store client's own CPU per round trip: the commands the endpoint classes send, `sends` times each, against the
 * bench's store (in another process, so its CPU is not counted), with today's client setup and candidate setups side
 * by side, interleaved round by round so that drift in the machine's speed falls on all of them alike.
 */
export async function benchStoreClient(sends: number, only?: readonly string[]): Promise<StoreClientFigures> {
  const tableName = process.env.TABLE_NAME as string;
  const partition = `BENCHCLIENT#${randomUUID()}`;
  // The store module reads the table's name when it loads: after the bench environment has set it.
  const all = setups(await import('#shared/store/dynamo'))
    .filter((setup, index) => index < 2 || !only || only.includes(setup.name))
    .map((setup) => ({ setup, client: setup.make() }));
  const seed = all[0]?.client as Sender;
  const publicKey = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.padEnd(392, 'x');
  for (let i = 0; i < 3; i++) {
    await seed.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: partition, sk: `KEY#${i}`, publicKey, active: true, created: '2026-01-01T00:00:00Z' },
      }) as never,
    );
  }
  await seed.send(
    new PutCommand({
      TableName: tableName,
      Item: { pk: partition, sk: 'HEAD', name: 'bench', owners: ['a', 'b'], keySet: 3, version: 1 },
    }) as never,
  );
  const make: Record<CommandName, () => unknown> = {
    Get: () =>
      new GetCommand({ TableName: tableName, Key: { pk: partition, sk: 'HEAD' }, ConsistentRead: true }),
    BatchGet: () =>
      new BatchGetCommand({
        RequestItems: {
          [tableName]: {
            Keys: [
              { pk: partition, sk: 'HEAD' },
              { pk: partition, sk: 'KEY#0' },
            ],
            ConsistentRead: true,
          },
        },
      }),
    Query: () =>
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': 'KEY#' },
        ConsistentRead: true,
      }),
    'conditional Put': () =>
      new PutCommand({
        TableName: tableName,
        Item: { pk: `${partition}#JTI`, sk: randomUUID(), expiresAt: 2_000_000_000, ttl: 2_000_000_000 },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
        ExpressionAttributeValues: { ':now': 1_800_000_000 },
      }),
    Update: () =>
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: partition, sk: 'HEAD' },
        UpdateExpression: 'SET #version = #version + :one, #updated = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#version': 'version', '#updated': 'updated' },
        ExpressionAttributeValues: { ':one': 1, ':now': new Date().toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
  };

  const run = async (client: Sender, name: CommandName, count: number): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) await client.send(make[name]() as never);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  for (const { client } of all) {
    const prepare = (client as Partial<ReturnType<typeof rawHttp>>).prepare;
    if (prepare) for (const name of commandNames) await prepare(seed, make[name]());
  }
  // Warm-up: connections open, code compiled, credentials and endpoints resolved.
  for (const { client } of all) for (const name of commandNames) await run(client, name, 20);
  // The floor replays what the SDK signed, whatever it is asked: its answers are the SDK's by construction.
  for (const { setup, client } of all) {
    if (!('prepare' in client)) await checkAnswers(setup.name, client, make, { tableName, partition });
  }

  const rounds = 10;
  const perRound = Math.max(1, Math.ceil(sends / rounds));
  const cpu = all.map(
    () => Object.fromEntries(commandNames.map((name) => [name, 0])) as Record<CommandName, number>,
  );
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < all.length; i++) {
      // A rotating order, so no setup always runs right after another.
      const index = (i + r) % all.length;
      const { client } = all[index] as (typeof all)[number];
      for (const name of commandNames)
        (cpu[index] as Record<CommandName, number>)[name] += await run(client, name, perRound);
    }
  }
  const total = rounds * perRound;
  const figures = all.map(({ setup }, index) => {
    const spent = cpu[index] as Record<CommandName, number>;
    const perCommand = Object.fromEntries(commandNames.map((name) => [name, round(spent[name] / total)]));
    const mix = Object.values(spent).reduce((sum, ms) => sum + ms, 0) / (total * commandNames.length);
    return {
      name: setup.name,
      cpuMsPerRoundTrip: { ...perCommand, mix: round(mix) } as Record<CommandName | 'mix', number>,
    };
  });
  const today = figures[0]?.cpuMsPerRoundTrip.mix ?? Number.NaN;
  return {
    sendsPerCommand: total,
    marshallingCpuMsPerRoundTrip: await marshallingAlone(seed, make, total),
    setups: figures.map((each) => ({ ...each, ratioToToday: round(each.cpuMsPerRoundTrip.mix / today, 2) })),
  };
}

/**
 * Fails the bench unless `client` answers as the store module's client does, once before any send is timed: the
 * items each command reads or writes back as plain objects, and a condition that fails as a rejection named
 * ConditionalCheckFailedException, which the store's code recognises by name.
 */
async function checkAnswers(
  name: string,
  client: Sender,
  make: Record<CommandName, () => unknown>,
  { tableName, partition }: { readonly tableName: string; readonly partition: string },
): Promise<void> {
  const send = async (command: CommandName) =>
    (await client.send(make[command]() as never)) as Record<string, never>;
  const get = (await send('Get')).Item as { name?: unknown } | undefined;
  const batch = ((await send('BatchGet')).Responses as Record<string, { sk?: unknown }[]> | undefined)?.[
    tableName
  ];
  const query = (await send('Query')).Items as { publicKey?: unknown; active?: unknown }[] | undefined;
  await send('conditional Put');
  const updated = (await send('Update')).Attributes as { version?: unknown } | undefined;
  const refused = await client
    .send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: partition, sk: 'HEAD' },
        ConditionExpression: 'attribute_not_exists(pk)',
      }) as never,
    )
    .then(
      () => 'nothing',
      (error: unknown) => (error as Error).name,
    );
  const wrong = [
    get?.name === 'bench' ? [] : ['Get'],
    batch
      ?.map((item) => item.sk)
      .sort()
      .join() === 'HEAD,KEY#0'
      ? []
      : ['BatchGet'],
    query?.length === 3 && query.every((item) => typeof item.publicKey === 'string' && item.active === true)
      ? []
      : ['Query'],
    typeof updated?.version === 'number' ? [] : ['Update'],
    refused === 'ConditionalCheckFailedException' ? [] : [`failed condition (${refused})`],
  ].flat();
  if (wrong.length > 0)
    throw new Error(`${name} answers unlike the store module's client: ${wrong.join(', ')}`);
}

/** What the document client's marshalling of the mix costs by itself: each command's input maps and its answer. */
async function marshallingAlone(
  client: Sender,
  make: Record<CommandName, () => unknown>,
  times: number,
): Promise<number> {
  const inputs = commandNames.map((name) => (make[name]() as { input: Record<string, unknown> }).input);
  const answers = await Promise.all(commandNames.map((name) => client.send(make[name]() as never)));
  // The maps a command's input and answer carry, wherever the document client finds them.
  const maps = (value: Record<string, unknown>) =>
    [
      value.Key,
      value.Item,
      value.ExpressionAttributeValues,
      value.Attributes,
      ...((value.Items as unknown[] | undefined) ?? []),
      ...Object.values((value.RequestItems as Record<string, { Keys: unknown[] }> | undefined) ?? {}).flatMap(
        (each) => each.Keys,
      ),
      ...Object.values((value.Responses as Record<string, unknown[]> | undefined) ?? {}).flat(),
    ].filter((each): each is Record<string, unknown> => each !== undefined);
  const marshalled = answers.map((answer) =>
    maps(answer as Record<string, unknown>).map((each) => marshall(each)),
  );
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    for (const input of inputs)
      for (const each of maps(input)) marshall(each, { removeUndefinedValues: true });
    for (const answer of marshalled) for (const each of answer) unmarshall(each);
  }
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / (times * commandNames.length), 4);
}
