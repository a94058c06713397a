import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '#shared/client/api-client';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import {
  createDirectory,
  directoryClient,
  newOrganization,
  type Organization,
  refusal,
  refusedWith,
  uniqueName,
} from '#test/support/tree';

let service: TestRuntime;
let organization: Organization;
let directoryId: string;
/** The directory signing with its own key. */
let directory: ApiClient;

beforeAll(async () => {
  service = await startTestRuntime();
  organization = await newOrganization(service);
  directoryId = await createDirectory(organization);
  directory = await directoryClient(service, organization, directoryId);
});
afterAll(async () => {
  await service?.stop();
});

interface Manager {
  readonly prefix: string;
  readonly call: ApiClient;
  readonly subject: string | undefined;
}

const managerKinds = {
  'the organization': () => ({ prefix: '/organization/v3', call: organization.client, subject: undefined }),
  'a directory, signing itself': () => ({ prefix: '/directory/v3', call: directory, subject: undefined }),
  'a directory, through its organization': () => ({
    prefix: '/directory/v3',
    call: organization.client,
    subject: `dir:${directoryId}`,
  }),
} satisfies Record<string, () => Manager>;

/** The clients that manage one owner's services, resolved once the runtime is up. */
function managers(): [org: Manager, directory: Manager, directoryViaOrganization: Manager] {
  return [
    managerKinds['the organization'](),
    managerKinds['a directory, signing itself'](),
    managerKinds['a directory, through its organization'](),
  ];
}

async function create(manager: Manager, body: Record<string, unknown>) {
  return manager.call.call<{ id: string }>('POST', `${manager.prefix}/services`, {
    body,
    ...(manager.subject ? { subject: manager.subject } : {}),
  });
}

async function list(manager: Manager) {
  const { body } = await manager.call.call<Record<string, unknown>[]>('GET', `${manager.prefix}/services`, {
    ...(manager.subject ? { subject: manager.subject } : {}),
  });
  return body ?? [];
}

async function byIds(manager: Manager, ids: string[]) {
  const { body } = await manager.call.call<Record<string, unknown>[]>(
    'POST',
    `${manager.prefix}/services/list`,
    {
      body: { service_ids: ids },
      ...(manager.subject ? { subject: manager.subject } : {}),
    },
  );
  return body ?? [];
}

async function patch(manager: Manager, body: Record<string, unknown>) {
  return manager.call.call('PATCH', `${manager.prefix}/services`, {
    body,
    ...(manager.subject ? { subject: manager.subject } : {}),
  });
}

describe.each(Object.keys(managerKinds) as (keyof typeof managerKinds)[])('services of %s', (kind) => {
  let manager: Manager;
  beforeAll(() => {
    manager = managerKinds[kind]();
  });

  it('are created with exactly {"id"}, active, with the generic icon and null description and callback_url', async () => {
    const name = uniqueName('Checkout');
    const response = await create(manager, { name });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body as object)).toEqual(['id']);
    const id = (response.body as { id: string }).id;
    const [view] = await byIds(manager, [id]);
    expect(view).toEqual({
      id,
      name,
      description: null,
      icon: `${service.baseUrl}/public/v3/icons/service.svg`,
      callback_url: null,
      active: true,
    });
  });

  it('take the Java SDK’s body with every field null as the defaults', async () => {
    const response = await create(manager, {
      name: uniqueName('Nulls'),
      description: null,
      icon: null,
      callback_url: null,
      active: null,
    });
    const [view] = await byIds(manager, [(response.body as { id: string }).id]);
    expect(view).toMatchObject({ description: null, callback_url: null, active: true });
  });

  it('keep what they are given', async () => {
    const body = {
      name: uniqueName('Full'),
      description: 'Payments',
      icon: 'https://cdn.example.com/icon.png',
      callback_url: 'https://app.example.com/webhook',
      active: false,
    };
    const { id } = (await create(manager, body)).body as { id: string };
    expect(await byIds(manager, [id])).toEqual([{ id, ...body }]);
    expect((await list(manager)).find((view) => view.id === id)).toEqual({ id, ...body });
  });

  it('change only the fields present; null clears description, icon and callback_url, and leaves name and active', async () => {
    const name = uniqueName('Edit');
    const { id } = (
      await create(manager, {
        name,
        description: 'd',
        icon: 'https://i.example/x.png',
        callback_url: 'https://c.example/h',
      })
    ).body as { id: string };
    expect((await patch(manager, { service_id: id, active: false })).status).toBe(204);
    expect((await byIds(manager, [id]))[0]).toMatchObject({ name, active: false, description: 'd' });
    await patch(manager, {
      service_id: id,
      name: null,
      active: null,
      description: null,
      icon: null,
      callback_url: null,
    });
    expect((await byIds(manager, [id]))[0]).toEqual({
      id,
      name,
      active: false,
      description: null,
      icon: `${service.baseUrl}/public/v3/icons/service.svg`,
      callback_url: null,
    });
  });

  it('can be renamed, which frees the old name', async () => {
    const oldName = uniqueName('Old');
    const newName = uniqueName('New');
    const { id } = (await create(manager, { name: oldName })).body as { id: string };
    await patch(manager, { service_id: id, name: newName });
    expect((await byIds(manager, [id]))[0]?.name).toBe(newName);
    await expect(create(manager, { name: oldName })).resolves.toMatchObject({ status: 201 });
  });

  it('refuse unknown fields and bad values with ARG-001 naming the field', async () => {
    const { id } = (await create(manager, { name: uniqueName('Strict') })).body as { id: string };
    for (const [body, field] of [
      [{ service_id: id, colour: 'red' }, /colour/],
      [{ service_id: id, callback_url: 'not a url' }, /callback_url/],
      [{ service_id: id, icon: 'javascript:alert(1)' }, /icon/],
      [{ service_id: 'nope' }, /service_id/],
    ] as const) {
      const error = await refusal(patch(manager, body));
      expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
      expect(String(error.errorDetail)).toMatch(field);
    }
  });
});

describe('service names', () => {
  let org: Manager;
  let dir: Manager;
  beforeAll(() => {
    [org, dir] = managers();
  });

  it('are unique across Directory and Organization Services, in any case (SVC-001)', async () => {
    const name = uniqueName('Unique');
    await create(org, { name });
    expect(await refusedWith(create(dir, { name }))).toEqual({ status: 400, code: 'SVC-001' });
    expect(await refusedWith(create(org, { name: name.toLowerCase() }))).toEqual({
      status: 400,
      code: 'SVC-001',
    });
    const elsewhere = await newOrganization(service);
    expect(
      await refusedWith(elsewhere.client.call('POST', '/organization/v3/services', { body: { name } })),
    ).toEqual({
      status: 400,
      code: 'SVC-001',
    });
  });

  it('cannot be taken by a rename (SVC-001)', async () => {
    const taken = uniqueName('Taken');
    await create(org, { name: taken });
    const { id } = (await create(dir, { name: uniqueName('Mine') })).body as { id: string };
    expect(await refusedWith(patch(dir, { service_id: id, name: taken }))).toEqual({
      status: 400,
      code: 'SVC-001',
    });
  });

  it("cannot be a look-alike of another tenant's, made with a Cyrillic А or rn for m (SVC-001)", async () => {
    const name = uniqueName('Acme Bank');
    await create(org, { name });
    const elsewhere = await newOrganization(service);
    for (const lookAlike of [`\u0410${name.slice(1)}`, name.replace('m', 'rn')]) {
      expect(
        await refusedWith(
          elsewhere.client.call('POST', '/organization/v3/services', { body: { name: lookAlike } }),
        ),
      ).toEqual({ status: 400, code: 'SVC-001' });
      expect(await refusedWith(create(dir, { name: lookAlike }))).toEqual({ status: 400, code: 'SVC-001' });
    }
  });

  it("cannot be renamed into a look-alike of another tenant's (SVC-001)", async () => {
    const taken = uniqueName('Acme Bank');
    await create(org, { name: taken });
    const elsewhere = await newOrganization(service);
    const { id } = (
      await elsewhere.client.call<{ id: string }>('POST', '/organization/v3/services', {
        body: { name: uniqueName('Mine') },
      })
    ).body as { id: string };
    const lookAlike = `\u0410${taken.slice(1)}`;
    expect(
      await refusedWith(
        elsewhere.client.call('PATCH', '/organization/v3/services', {
          body: { service_id: id, name: lookAlike },
        }),
      ),
    ).toEqual({ status: 400, code: 'SVC-001' });
  });

  it('may be renamed into a look-alike of its own name, which the old name no longer holds', async () => {
    const name = uniqueName('Acme Bank');
    const { id } = (await create(org, { name })).body as { id: string };
    const lookAlike = name.replace('m', 'rn');
    await patch(org, { service_id: id, name: lookAlike });
    expect((await byIds(org, [id]))[0]?.name).toBe(lookAlike);
    expect(await refusedWith(create(dir, { name }))).toEqual({ status: 400, code: 'SVC-001' });
    await patch(org, { service_id: id, name: uniqueName('Renamed') });
    expect((await create(dir, { name })).status).toBe(201);
  });

  it('of services named before look-alikes were refused are held once the operator claims their look-alikes', async () => {
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { dynamo, tableName } = await import('#shared/store/dynamo');
    const { serviceSkeletonClaimKey } = await import('#shared/store/keys');
    const { nameSkeleton } = await import('#shared/domain/name-skeleton');
    const { claimLookAlikeNames } = await import('#shared/use-cases/look-alike-names');
    /** A service as one created before look-alikes were claimed left it: holding its name alone. */
    const createdBefore = async (name: string) => {
      const { id } = (await create(org, { name })).body as { id: string };
      await dynamo.send(
        new DeleteCommand({ TableName: tableName, Key: serviceSkeletonClaimKey(nameSkeleton(name)) }),
      );
      return id;
    };
    const old = uniqueName('Acme Bank');
    const oldId = await createdBefore(old);
    const clashing = uniqueName('Bank');
    const clashingId = await createdBefore(clashing);
    const elsewhere = await newOrganization(service);
    const createElsewhere = (name: string) =>
      elsewhere.client.call<{ id: string }>('POST', '/organization/v3/services', { body: { name } });
    // Taken while the older service held its name alone: both keep theirs.
    const lookAlikeId = ((await createElsewhere(clashing.replace('a', '\u0430'))).body as { id: string }).id;

    const { clashes } = await claimLookAlikeNames(new Date());

    expect(clashes.filter((clash) => [oldId, clashingId, lookAlikeId].includes(clash.service_id))).toEqual([
      { service_id: clashingId, name: clashing, look_alike_of: lookAlikeId },
    ]);
    expect(await refusedWith(createElsewhere(`\u0410${old.slice(1)}`))).toEqual({
      status: 400,
      code: 'SVC-001',
    });
  });

  it('go to exactly one of many concurrent creates', async () => {
    const name = uniqueName('Race');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) => create(index % 2 ? org : dir, { name })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect(outcome.reason).toMatchObject({ errorCode: 'SVC-001' });
    }
  });

  it('go to exactly one of many concurrent renames', async () => {
    const target = uniqueName('Target');
    const ids = await Promise.all(
      Array.from(
        { length: 6 },
        async () => ((await create(org, { name: uniqueName('Before') })).body as { id: string }).id,
      ),
    );
    const outcomes = await Promise.allSettled(ids.map((id) => patch(org, { service_id: id, name: target })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const named = (await byIds(org, ids)).filter((view) => view.name === target);
    expect(named).toHaveLength(1);
  });
});

describe('who sees which services', () => {
  it('a directory lists its own services, and its service_ids follow', async () => {
    const [, dir] = managers();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await create(dir, { name: uniqueName('Own') })).body as { id: string }).id);
    const listed = (await list(dir)).map((view) => view.id);
    expect(listed).toEqual(expect.arrayContaining(ids));
    const { body } = await organization.client.call<{ service_ids: string[] }[]>(
      'POST',
      '/organization/v3/directories/list',
      {
        body: { directory_ids: [directoryId] },
      },
    );
    expect(body?.[0]?.service_ids).toEqual(expect.arrayContaining(ids));
    expect(body?.[0]?.service_ids).toHaveLength(listed.length);
  });

  it('a directory cannot see another directory’s services, nor the organization’s', async () => {
    const [org, dir] = managers();
    const otherDirectory = await createDirectory(organization);
    const other: Manager = { ...dir, call: organization.client, subject: `dir:${otherDirectory}` };
    const theirs = ((await create(other, { name: uniqueName('Theirs') })).body as { id: string }).id;
    const organizations = ((await create(org, { name: uniqueName('Org owned') })).body as { id: string }).id;
    expect((await list(dir)).map((view) => view.id)).not.toContain(theirs);
    expect(await refusedWith(byIds(dir, [theirs]))).toEqual({ status: 403, code: 'HTTP-403' });
    expect(await refusedWith(byIds(dir, [organizations]))).toEqual({ status: 403, code: 'HTTP-403' });
    expect(await refusedWith(patch(dir, { service_id: theirs, active: false }))).toEqual({
      status: 403,
      code: 'HTTP-403',
    });
  });

  it('an organization cannot see another organization’s services, nor act for its directories', async () => {
    const other = await newOrganization(service);
    const theirDirectory = await createDirectory(other);
    const theirs = (
      (
        await other.client.call<{ id: string }>('POST', '/organization/v3/services', {
          body: { name: uniqueName('Foreign') },
        })
      ).body as { id: string }
    ).id;
    expect(
      await refusedWith(
        organization.client.call('POST', '/organization/v3/services/list', {
          body: { service_ids: [theirs] },
        }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
    expect(
      await refusedWith(
        organization.client.call('GET', '/directory/v3/services', { subject: `dir:${theirDirectory}` }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
    expect(
      await refusedWith(
        organization.client.call('POST', '/organization/v3/services/list', {
          body: { service_ids: [randomUUID()] },
        }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
  });
});

describe('the generic icon', () => {
  it('is served where its URL points', async () => {
    const response = await fetch(`${service.baseUrl}/public/v3/icons/service.svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    const icon = await response.text();
    expect(icon).toMatch(/^<svg /);
    // A neutral mark: the check mark it once drew read, beside "asks you to approve", as an answer already given.
    expect(icon).not.toMatch(/<path/);
  });
});
