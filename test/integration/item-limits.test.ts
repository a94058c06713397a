import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRequestError } from '#shared/client/errors';
import {
  maxDevicesPerUser,
  maxKeysPerEntity,
  maxSdkKeysPerDirectory,
  maxServicesPerDirectory,
  maxSessionsPerUser,
} from '#shared/domain/limits';
import { DeviceStatus, type UserDevice } from '#shared/domain/user';
import * as keys from '#shared/store/keys';
import { rsaKeyPair, type TestKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { createDirectory, newOrganization, type Organization, refusal, uniqueName } from '#test/support/tree';

/**
 * Lists that grow one request at a time on a single item stop at their limit with ARG-001, atomically: each list is
 * filled straight through the store to one or two short of its limit, and the adds that reach and pass it go over
 * HTTP.
 */
let runtime: TestRuntime;
let organization: Organization;
let store: typeof import('#shared/store/dynamo');
/** Public keys to add; a key may be added to several entities. */
let pairs: TestKeyPair[];
const pair = (index: number) => pairs[index] as TestKeyPair;

beforeAll(async () => {
  runtime = await startTestRuntime();
  organization = await newOrganization(runtime);
  store = await import('#shared/store/dynamo');
  pairs = Array.from({ length: 12 }, () => rsaKeyPair());
});
afterAll(async () => {
  await runtime?.stop();
});

const call = <T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: Record<string, unknown>,
  subject?: string,
) =>
  organization.client.call<T>(method, path, { ...(body ? { body } : {}), ...(subject ? { subject } : {}) });

/** Writes one attribute of an item (SET), or adds members to a set (ADD): a seed. */
async function seed(key: keys.ItemKey, attribute: string, value: unknown, verb: 'ADD' | 'SET' = 'SET') {
  await store.dynamo.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: key,
      UpdateExpression: verb === 'ADD' ? 'ADD #a :v' : 'SET #a = :v',
      ExpressionAttributeNames: { '#a': attribute },
      ExpressionAttributeValues: { ':v': value },
    }),
  );
}

async function storedItem(key: keys.ItemKey): Promise<Record<string, unknown>> {
  const { Item } = await store.dynamo.send(
    new GetCommand({ TableName: store.tableName, Key: key, ConsistentRead: true }),
  );
  return Item ?? {};
}

const uuids = (count: number) => new Set(Array.from({ length: count }, () => randomUUID()));

/** The refusal of a full list: 400 ARG-001 with `detail`. */
async function expectFull(request: Promise<unknown>, detail: string): Promise<void> {
  const error = await refusal(request);
  expect({ status: error.status, code: error.errorCode, detail: error.errorDetail }).toEqual({
    status: 400,
    code: 'ARG-001',
    detail,
  });
}

/** Runs `count` requests at once; every one that fails must be a 400 ARG-001. Returns how many succeeded. */
async function race(count: number, request: (index: number) => Promise<unknown>): Promise<number> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, (_, index) => request(index)));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      expect(outcome.reason).toBeInstanceOf(ApiRequestError);
      expect(outcome.reason).toMatchObject({ status: 400, errorCode: 'ARG-001' });
    }
  }
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
}

describe('keys per entity', () => {
  const newService = async () =>
    (await call<{ id: string }>('POST', '/organization/v3/services', { name: uniqueName('Keys') })).body
      ?.id as string;
  const addKey = (serviceId: string, pair: TestKeyPair) =>
    call('POST', '/organization/v3/service/keys', { service_id: serviceId, public_key: pair.publicPem });
  const listKeys = async (serviceId: string) =>
    (
      await call<{ id: string }[]>('POST', '/organization/v3/service/keys/list', { service_id: serviceId })
    ).body?.map((key) => key.id);
  /** A service with one key over HTTP and fake key ids up to `count` in its key set. */
  const serviceWithKeys = async (count: number, first: TestKeyPair) => {
    const serviceId = await newService();
    await addKey(serviceId, first);
    const fakes = Array.from({ length: count - 1 }, (_, index) => `fake:${index}`);
    await seed(keys.entityHeadKey({ type: 'svc', id: serviceId }), 'kids', new Set(fakes), 'ADD');
    return serviceId;
  };

  it(`stop at ${maxKeysPerEntity}; removing one makes room`, async () => {
    const serviceId = await serviceWithKeys(maxKeysPerEntity - 1, pair(0));
    await addKey(serviceId, pair(1));
    await expectFull(
      addKey(serviceId, pair(2)),
      `The service already has ${maxKeysPerEntity} keys; remove one before adding another`,
    );
    // The refused key's item, which is what would sign, was taken back.
    expect((await listKeys(serviceId))?.sort()).toEqual([pair(0).kid, pair(1).kid].sort());

    await call('DELETE', '/organization/v3/service/keys', { service_id: serviceId, key_id: pair(0).kid });
    await addKey(serviceId, pair(2));
    expect((await listKeys(serviceId))?.sort()).toEqual([pair(1).kid, pair(2).kid].sort());
  });

  it('added concurrently one short of the limit: exactly one is kept', async () => {
    const serviceId = await serviceWithKeys(maxKeysPerEntity - 1, pair(0));
    const contenders = pairs.slice(2);
    expect(
      await race(contenders.length, (index) => addKey(serviceId, contenders[index] as TestKeyPair)),
    ).toBe(1);
    expect(await listKeys(serviceId)).toHaveLength(2);
    const head = await storedItem(keys.entityHeadKey({ type: 'svc', id: serviceId }));
    expect((head.kids as Set<string>).size).toBe(maxKeysPerEntity);
  });

  it('at the limit, a key left outside the set by a failed add can still be removed', async () => {
    const serviceId = await serviceWithKeys(maxKeysPerEntity, pair(0));
    const orphan = pair(1);
    await store.dynamo.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...keys.entityKeyKey({ type: 'svc', id: serviceId }, orphan.kid),
          kid: orphan.kid,
          publicKey: orphan.publicPem,
          keyType: 0,
          active: true,
          created: '2024-01-01T00:00:00Z',
        },
      }),
    );
    await call('DELETE', '/organization/v3/service/keys', { service_id: serviceId, key_id: orphan.kid });
    expect(await listKeys(serviceId)).toEqual([pair(0).kid]);
  });
});

describe('SDK keys per directory', () => {
  const generate = (directoryId: string) =>
    call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', { directory_id: directoryId });
  const list = async (directoryId: string) =>
    (await call<string[]>('POST', '/organization/v3/directory/sdk-keys/list', { directory_id: directoryId }))
      .body as string[];
  const directoryWithSdkKeys = async (count: number) => {
    const directoryId = await createDirectory(organization);
    await seed(keys.directoryRecordKey(organization.id, directoryId), 'sdkKeys', uuids(count), 'ADD');
    return directoryId;
  };

  it(`stop at ${maxSdkKeysPerDirectory}; removing one makes room`, async () => {
    const directoryId = await directoryWithSdkKeys(maxSdkKeysPerDirectory - 1);
    await generate(directoryId);
    await expectFull(
      generate(directoryId),
      `The directory already has ${maxSdkKeysPerDirectory} SDK keys; remove one before generating another`,
    );
    const present = await list(directoryId);
    expect(present).toHaveLength(maxSdkKeysPerDirectory);

    await call('DELETE', '/organization/v3/directory/sdk-keys', {
      directory_id: directoryId,
      sdk_key: present[0],
    });
    const added = (await generate(directoryId)).body?.sdk_key;
    expect(await list(directoryId)).toContain(added);
  });

  it('generated concurrently one short of the limit: exactly one is kept', async () => {
    const directoryId = await directoryWithSdkKeys(maxSdkKeysPerDirectory - 1);
    expect(await race(10, () => generate(directoryId))).toBe(1);
    expect(await list(directoryId)).toHaveLength(maxSdkKeysPerDirectory);
    // Only the kept key can link a device: the refused ones' lookups were taken back.
    const { Items = [] } = await store.dynamo.send(
      new ScanCommand({
        TableName: store.tableName,
        FilterExpression: 'begins_with(pk, :lookup) AND directoryId = :directory',
        ExpressionAttributeValues: { ':lookup': 'SDKKEY#', ':directory': directoryId },
      }),
    );
    expect(Items).toHaveLength(1);
  });
});

describe('services per directory', () => {
  const create = (directoryId: string, name: string) =>
    call<{ id: string }>('POST', '/directory/v3/services', { name }, `dir:${directoryId}`);
  const listed = async (directoryId: string) =>
    (
      await call<{ name: string }[]>('GET', '/directory/v3/services', undefined, `dir:${directoryId}`)
    ).body?.map((service) => service.name);
  const serviceIds = async (directoryId: string) =>
    (
      await call<{ service_ids: string[] }[]>('POST', '/organization/v3/directories/list', {
        directory_ids: [directoryId],
      })
    ).body?.[0]?.service_ids as string[];
  const directoryWithServices = async (count: number) => {
    const directoryId = await createDirectory(organization);
    await seed(keys.directoryRecordKey(organization.id, directoryId), 'serviceIds', uuids(count), 'ADD');
    return directoryId;
  };

  it(`stop at ${maxServicesPerDirectory}; a refused create leaves no trace, and a free place takes it`, async () => {
    const directoryId = await directoryWithServices(maxServicesPerDirectory - 1);
    const [last, refused] = [uniqueName('Last'), uniqueName('Refused')];
    const lastId = (await create(directoryId, last)).body?.id;
    await expectFull(
      create(directoryId, refused),
      `The directory already has ${maxServicesPerDirectory} services, the most one directory holds; create this one in another directory`,
    );
    expect(await listed(directoryId)).toEqual([last]);
    expect(await serviceIds(directoryId)).toHaveLength(maxServicesPerDirectory);

    // Services cannot be removed through the API; one id fewer on the record frees a place, and the refused name
    // was given back.
    const seeded = (await serviceIds(directoryId)).find((id) => id !== lastId);
    await store.dynamo.send(
      new UpdateCommand({
        TableName: store.tableName,
        Key: keys.directoryRecordKey(organization.id, directoryId),
        UpdateExpression: 'DELETE serviceIds :id',
        ExpressionAttributeValues: { ':id': new Set([seeded]) },
      }),
    );
    await create(directoryId, refused);
    expect((await listed(directoryId))?.sort()).toEqual([last, refused].sort());
  });

  it('created concurrently one short of the limit: exactly one is kept, the others undone', async () => {
    const directoryId = await directoryWithServices(maxServicesPerDirectory - 1);
    const names = Array.from({ length: 10 }, () => uniqueName('Contender'));
    expect(await race(names.length, (index) => create(directoryId, names[index] as string))).toBe(1);
    expect(await listed(directoryId)).toHaveLength(1);
    expect(await serviceIds(directoryId)).toHaveLength(maxServicesPerDirectory);
  });
});

describe('sessions per user', () => {
  let directoryId: string;
  let services: string[];
  const start = (serviceId: string, username: string) =>
    call('POST', '/service/v3/sessions', { username }, `svc:${serviceId}`);
  /** A user with `count` sessions with services that are not there. */
  const userWithSessions = async (identifier: string, count: number) => {
    await call('POST', '/directory/v3/devices', { identifier }, `dir:${directoryId}`);
    const created = new Date().toISOString();
    const sessions = Object.fromEntries(
      [...uuids(count)].map((serviceId) => [
        serviceId,
        { serviceId, authRequest: null, created, requester: `svc:${serviceId}`, identity: 'lka' },
      ]),
    );
    await seed(keys.userRecordKey(directoryId, identifier), 'sessions', sessions);
  };
  const sessionCount = async (identifier: string) =>
    Object.keys((await storedItem(keys.userRecordKey(directoryId, identifier))).sessions as object).length;

  beforeAll(async () => {
    directoryId = await createDirectory(organization);
    services = [];
    for (let index = 0; index < 11; index++) {
      services.push(
        (
          await call<{ id: string }>(
            'POST',
            '/directory/v3/services',
            { name: uniqueName('Sessions') },
            `dir:${directoryId}`,
          )
        ).body?.id as string,
      );
    }
  });

  it(`stop at ${maxSessionsPerUser} services; a restart still works, and ending one makes room`, async () => {
    await userWithSessions('alice', maxSessionsPerUser - 1);
    const [first, second] = services as [string, string];
    expect((await start(first, 'alice')).status).toBe(204);
    expect((await start(first, 'alice')).status).toBe(204);
    await expectFull(
      start(second, 'alice'),
      `The user already has sessions with ${maxSessionsPerUser} services; end one before starting another`,
    );
    expect(await sessionCount('alice')).toBe(maxSessionsPerUser);

    await call('DELETE', '/service/v3/sessions', { username: 'alice' }, `svc:${first}`);
    expect((await start(second, 'alice')).status).toBe(204);
  });

  it('started concurrently one short of the limit: exactly one is kept', async () => {
    await userWithSessions('bob', maxSessionsPerUser - 1);
    const contenders = services.slice(1);
    expect(await race(contenders.length, (index) => start(contenders[index] as string, 'bob'))).toBe(1);
    expect(await sessionCount('bob')).toBe(maxSessionsPerUser);
  });
});

describe('devices per user', () => {
  let directoryId: string;
  const link = (identifier: string) =>
    call<{ code: string; device_id: string }>(
      'POST',
      '/directory/v3/devices',
      { identifier },
      `dir:${directoryId}`,
    );
  const list = async (identifier: string) =>
    (
      await call<Record<string, unknown>[]>(
        'POST',
        '/directory/v3/devices/list',
        { identifier },
        `dir:${directoryId}`,
      )
    ).body as Record<string, unknown>[];
  const fullDetail = `The user already has ${maxDevicesPerUser} devices, pending links included until their code expires; unlink one before linking another`;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const device = (status: DeviceStatus, linkExpiresAt?: number): UserDevice => ({
    id: randomUUID(),
    name: status === DeviceStatus.linked ? 'Phone' : null,
    type: status === DeviceStatus.linked ? 'Android' : null,
    status,
    created: '2024-01-01T00:00:00Z',
    updated: '2024-01-01T00:00:00Z',
    ...(linkExpiresAt === undefined ? {} : { linkExpiresAt }),
  });
  /** A user whose devices are exactly `devices`. */
  const userWithDevices = async (identifier: string, devices: readonly UserDevice[]) => {
    await link(identifier);
    const map = Object.fromEntries(devices.map((one) => [one.id, one]));
    await seed(keys.userRecordKey(directoryId, identifier), 'devices', map);
  };
  const linked = (count: number) => Array.from({ length: count }, () => device(DeviceStatus.linked));

  beforeAll(async () => {
    directoryId = await createDirectory(organization);
  });

  it('record when their linking code expires, and list only what the SDKs read', async () => {
    const started = (await link('carol')).body as { code: string; device_id: string };
    const { getLinkCode } = await import('#shared/store/link-codes');
    const code = await getLinkCode(started.code, nowSeconds());
    const stored = (await storedItem(keys.userRecordKey(directoryId, 'carol'))).devices as Record<
      string,
      UserDevice
    >;
    expect(stored[started.device_id]?.linkExpiresAt).toBe(code?.expiresAt);
    expect((await list('carol')).map((one) => Object.keys(one).sort())).toEqual([
      ['created', 'id', 'name', 'status', 'type', 'updated'],
    ]);
  });

  it(`stop at ${maxDevicesPerUser}; unlinking one makes room`, async () => {
    const devices = linked(maxDevicesPerUser - 1);
    await userWithDevices('dave', devices);
    await link('dave');
    await expectFull(link('dave'), fullDetail);
    expect(await list('dave')).toHaveLength(maxDevicesPerUser);

    await call(
      'DELETE',
      '/directory/v3/devices',
      { identifier: 'dave', device_id: devices[0]?.id },
      `dir:${directoryId}`,
    );
    await link('dave');
    expect(await list('dave')).toHaveLength(maxDevicesPerUser);
  });

  it('linked concurrently one short of the limit: exactly one is kept', async () => {
    await userWithDevices('erin', linked(maxDevicesPerUser - 1));
    expect(await race(10, () => link('erin'))).toBe(1);
    expect(await list('erin')).toHaveLength(maxDevicesPerUser);
  });

  it('make room by removing pending devices whose code has expired, and only those', async () => {
    const now = nowSeconds();
    const expired = Array.from({ length: 30 }, () => device(DeviceStatus.linkPending, now - 60));
    const waiting = Array.from({ length: 10 }, () => device(DeviceStatus.linkPending, now + 600));
    const undated = Array.from({ length: 10 }, () => device(DeviceStatus.linkPending));
    const kept = [...waiting, ...undated, ...linked(maxDevicesPerUser - 50)];
    await userWithDevices('frank', [...expired, ...kept]);
    const added = (await link('frank')).body?.device_id as string;

    const ids = (await list('frank')).map((one) => one.id);
    expect(ids.sort()).toEqual([...kept.map((one) => one.id), added].sort());
  });

  it('refuse a user whose pending devices have no expiry or have not expired', async () => {
    const now = nowSeconds();
    await userWithDevices('grace', [
      ...Array.from({ length: maxDevicesPerUser / 2 }, () => device(DeviceStatus.linkPending)),
      ...Array.from({ length: maxDevicesPerUser / 2 }, () => device(DeviceStatus.linkPending, now + 600)),
    ]);
    await expectFull(link('grace'), fullDetail);
    expect(await list('grace')).toHaveLength(maxDevicesPerUser);
  });
});
