import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { engineClientConfig } from '#infra/local/engines';
import { ApiClient, type ApiClientOptions } from '#shared/client/api-client';
import { KeyType } from '#shared/domain/entity-key';
import { nameKey } from '#shared/domain/names';
import { deviceLinked } from '#shared/domain/subject';
import { DeviceStatus, type UserDevice } from '#shared/domain/user';
import {
  directoryRecordKey,
  directorySettingsKey,
  entityHeadKey,
  entityKeyKey,
  organizationUserIndexKey,
  serviceNameClaimKey,
  serviceRecordKey,
  userHeadKey,
  userRecordKey,
} from '#shared/store/keys';
import { isoSeconds } from '#shared/time';
import type { BenchEnvironment } from '#test/bench/environment';
import { loadRouteTable, type RouteTable, withLocalApiKey } from '#test/bench/route-table';
import type { StoreClient } from '#shared/store/dynamo';
import { rsaKeyPair, type TestKeyPair } from '#test/support/keys';

/** A table and a store client that reaches it: the bench environment's, or a service process's engine. */
export interface StoreTarget {
  readonly client: Pick<StoreClient, 'send'>;
  readonly tableName: string;
}

export interface SeededUser {
  readonly identifier: string;
  readonly userId: string;
  readonly deviceId: string;
}

/** A directory with one active Directory Service that has a key, and as many users with a linked device as asked. */
export interface SeededDirectory {
  readonly organizationId: string;
  readonly directoryId: string;
  readonly serviceId: string;
  /** Signs as the service (`svc:<id>`). */
  readonly service: ApiClient;
  readonly serviceKey: TestKeyPair;
  /** The one key pair of every seeded device. */
  readonly deviceKey: TestKeyPair;
  readonly users: readonly SeededUser[];
  /** Signs as a user's device (`dev:<id>`). */
  device(user: SeededUser): ApiClient;
  /** Adds users until the directory has `count`; returns the seconds it took. */
  growTo(count: number): Promise<number>;
  /** Adds `count` more Directory Services, without keys; returns the seconds it took. */
  addServices(count: number): Promise<number>;
  /** Directory Services, the one that asks included. */
  readonly services: number;
}

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

/** BatchWriteItem's limit, and how many batches are in flight at once: enough to keep the engine busy. */
const batchItems = 25;
const batchesInFlight = 8;

/**
 * Makes the directory and its service through the API as the organization, then writes users straight into the table
 * with the store's own key builders: the five items a user with one linked device has (record, head by user id, the
 * organization's index entry, the device's head and key), 25 to a BatchWrite. Going through `ensureUser` and a device
 * link would take ten round trips a user, a million for 100 000. Every seeded device shares one key pair:
 * making a key pair per device would take longer than the bench; the one cost this hides is the service's PEM import
 * of a device key it has not seen (its cache holds 1 000), a fraction of a millisecond.
 */
export async function seedDirectory(options: {
  /** Signs as the organization and sends through `clientOptions.fetch`. */
  readonly organization: ApiClient;
  readonly organizationId: string;
  readonly store: StoreTarget;
  /** Base URL and fetch for the service's and the devices' clients. */
  readonly clientOptions: Pick<ApiClientOptions, 'baseUrl' | 'fetch'>;
  readonly name: string;
}): Promise<SeededDirectory> {
  const { organization, organizationId, store, clientOptions } = options;
  const directoryId = (
    await organization.call<{ id: string }>('POST', '/organization/v3/directories', {
      body: { name: options.name },
    })
  ).body?.id as string;
  const asDirectory = { subject: `dir:${directoryId}` };
  // The benches ask their users far more often than the per-user limit lets anyone ask a person: its ceiling here.
  await store.client.send(
    new PutCommand({
      TableName: store.tableName,
      Item: { ...directorySettingsKey(directoryId), rateLimitCount: 10_000, rateLimitWindow: 60 },
    }),
  );
  const serviceId = (
    await organization.call<{ id: string }>('POST', '/directory/v3/services', {
      ...asDirectory,
      body: { name: `${options.name} service`, active: true },
    })
  ).body?.id as string;
  const serviceKey = rsaKeyPair();
  await organization.call('POST', '/directory/v3/service/keys', {
    ...asDirectory,
    body: { service_id: serviceId, public_key: serviceKey.publicPem },
  });

  const deviceKey = rsaKeyPair();
  const prefix = randomUUID().slice(0, 8);
  const users: SeededUser[] = [];
  const itemsOf = (user: SeededUser, created: string): Record<string, unknown>[] => {
    const device: UserDevice = {
      id: user.deviceId,
      name: 'Bench phone',
      type: 'Android',
      status: DeviceStatus.linked,
      created,
      updated: created,
    };
    const entity = { type: 'dev', id: user.deviceId } as const;
    // users.ts keys its organization index by the identifier's SHA-256, as here.
    const identifierHash = createHash('sha256').update(user.identifier).digest('hex');
    return [
      { ...organizationUserIndexKey(organizationId, identifierHash, directoryId), directoryId },
      { ...userHeadKey(user.userId), directoryId, identifier: user.identifier },
      {
        ...userRecordKey(directoryId, user.identifier),
        userId: user.userId,
        identifier: user.identifier,
        directoryId,
        organizationId,
        created,
        devices: { [device.id]: device },
        sessions: {},
      },
      {
        ...entityHeadKey(entity),
        status: deviceLinked,
        userId: user.userId,
        organizationId,
        directoryId,
        identifier: user.identifier,
        kids: new Set([deviceKey.kid]),
      },
      {
        ...entityKeyKey(entity, deviceKey.kid),
        kid: deviceKey.kid,
        publicKey: deviceKey.publicPem,
        keyType: KeyType.both,
        active: true,
        created,
      },
    ];
  };
  const writeBatch = async (items: Record<string, unknown>[]) => {
    let pending: WriteRequests = items.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await store.client.send(
        new BatchWriteCommand({ RequestItems: { [store.tableName]: pending } }),
      );
      pending = UnprocessedItems?.[store.tableName] ?? [];
    }
  };
  /** Writes the items 25 to a BatchWrite, several batches in flight; returns the seconds it took. */
  const writeAll = async (items: Record<string, unknown>[]) => {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: batchesInFlight }, async () => {
        while (next < items.length) {
          const batch = items.slice(next, next + batchItems);
          next += batchItems;
          await writeBatch(batch);
        }
      }),
    );
    return (performance.now() - started) / 1000;
  };
  let services = 1;

  return {
    organizationId,
    directoryId,
    serviceId,
    service: new ApiClient({
      ...clientOptions,
      issuer: `svc:${serviceId}`,
      privateKeyPem: serviceKey.privatePem,
      tokenLifetimeSeconds: 60,
    }),
    serviceKey,
    deviceKey,
    users,
    get services() {
      return services;
    },
    device: (user) =>
      new ApiClient({
        ...clientOptions,
        issuer: `dev:${user.deviceId}`,
        privateKeyPem: deviceKey.privatePem,
        tokenLifetimeSeconds: 60,
      }),
    async growTo(count) {
      const created = isoSeconds(new Date());
      const fresh: SeededUser[] = [];
      for (let index = users.length; index < count; index++) {
        fresh.push({ identifier: `${prefix}-${index}`, userId: randomUUID(), deviceId: randomUUID() });
      }
      const seconds = await writeAll(fresh.flatMap((user) => itemsOf(user, created)));
      users.push(...fresh);
      return seconds;
    },
    async addServices(count) {
      // What services.ts writes for a Directory Service: its name claim, its head (which is its record) and the
      // listing copy in the directory's partition; then the directory's `service_ids`, here in one update.
      const created = isoSeconds(new Date());
      const owner = { type: 'dir', id: directoryId } as const;
      const ids = Array.from({ length: count }, () => randomUUID());
      const items = ids.flatMap((id, index) => {
        const name = `${options.name} ${prefix} service ${services + index}`;
        const record = { id, name, active: true, created, organizationId, directoryId };
        return [
          { ...serviceNameClaimKey(nameKey(name)), ownerId: id, claimedAt: Date.now() },
          { ...entityHeadKey({ type: 'svc', id }), ...record },
          { ...serviceRecordKey(owner, id), ...record },
        ];
      });
      const started = performance.now();
      await writeAll(items);
      await store.client.send(
        new UpdateCommand({
          TableName: store.tableName,
          Key: directoryRecordKey(organizationId, directoryId),
          UpdateExpression: 'ADD serviceIds :ids',
          ExpressionAttributeValues: { ':ids': new Set(ids) },
        }),
      );
      services += count;
      return (performance.now() - started) / 1000;
    },
  };
}

/**
 * A directory seeded in the bench environment's store, whose API is reached through the route table's handlers in
 * this process: what the in-process benches measure against.
 */
export async function seedInProcessDirectory(
  environment: BenchEnvironment,
  name: string,
): Promise<{ table: RouteTable; organization: ApiClient; directory: SeededDirectory }> {
  const table = await loadRouteTable();
  const { dynamo, tableName } = await import('#shared/store/dynamo');
  const organization = environment.client({ fetch: table.fetch });
  const directory = await seedDirectory({
    organization,
    organizationId: environment.organizationId,
    store: { client: dynamo, tableName },
    clientOptions: { baseUrl: 'http://bench.invalid', fetch: table.fetch },
    name,
  });
  return { table, organization, directory };
}

/** A local runtime in a process of its own (npm start's, or the assembly's), reached over HTTP. */
export interface RuntimeTarget {
  readonly baseUrl: string;
  readonly organizationId: string;
  /** Its demo organization's private key. */
  readonly privateKeyPath: string;
  readonly dynamoEndpoint: string;
  readonly tableName: string;
}

/**
 * A directory seeded in a local runtime: made through its API over HTTP as its demo organization, its users written
 * straight into its store. `close` ends the store client, once no more users are to be added.
 */
export async function seedRuntimeDirectory(
  runtime: RuntimeTarget,
  name: string,
): Promise<{
  readonly organization: ApiClient;
  readonly organizationPem: string;
  readonly directory: SeededDirectory;
  /** Sends to the runtime, with the API's key and clock answered from this process (withLocalApiKey). */
  readonly fetch: typeof globalThis.fetch;
  close(): void;
}> {
  const { baseUrl } = runtime;
  const storeClient = DynamoDBDocumentClient.from(
    new DynamoDBClient(engineClientConfig(runtime.dynamoEndpoint)),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  try {
    const fetch = await withLocalApiKey(baseUrl, globalThis.fetch);
    const organizationPem = await readFile(runtime.privateKeyPath, 'utf8');
    const organization = new ApiClient({
      baseUrl,
      issuer: `org:${runtime.organizationId}`,
      privateKeyPem: organizationPem,
      tokenLifetimeSeconds: 60,
      fetch,
    });
    const directory = await seedDirectory({
      organization,
      organizationId: runtime.organizationId,
      store: { client: storeClient, tableName: runtime.tableName },
      clientOptions: { baseUrl, fetch },
      name,
    });
    return { organization, organizationPem, directory, fetch, close: () => storeClient.destroy() };
  } catch (error) {
    storeClient.destroy();
    throw error;
  }
}
