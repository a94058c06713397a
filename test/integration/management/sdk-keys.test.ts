import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { createDirectory, newOrganization, type Organization, refusedWith } from '#test/support/tree';

let service: TestRuntime;
let organization: Organization;

beforeAll(async () => {
  service = await startTestRuntime();
  organization = await newOrganization(service);
});
afterAll(async () => {
  await service?.stop();
});

const generate = (directoryId: string, org = organization) =>
  org.client.call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', {
    body: { directory_id: directoryId },
  });
const list = async (directoryId: string) =>
  (
    await organization.client.call<string[]>('POST', '/organization/v3/directory/sdk-keys/list', {
      body: { directory_id: directoryId },
    })
  ).body;
const remove = (directoryId: string, sdkKey: string) =>
  organization.client.call('DELETE', '/organization/v3/directory/sdk-keys', {
    body: { directory_id: directoryId, sdk_key: sdkKey },
  });
const directoryView = async (directoryId: string) =>
  (
    await organization.client.call<{ sdk_keys: string[] }[]>('POST', '/organization/v3/directories/list', {
      body: { directory_ids: [directoryId] },
    })
  ).body?.[0];

describe('SDK keys', () => {
  it('are generated as UUIDs, listed as a bare array, and shown on the directory', async () => {
    const directoryId = await createDirectory(organization);
    expect(await list(directoryId)).toEqual([]);
    const first = await generate(directoryId);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body as object)).toEqual(['sdk_key']);
    expect(first.body?.sdk_key).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const second = (await generate(directoryId)).body?.sdk_key as string;
    expect((await list(directoryId))?.sort()).toEqual([first.body?.sdk_key, second].sort());
    expect((await directoryView(directoryId))?.sdk_keys.sort()).toEqual([first.body?.sdk_key, second].sort());
  });

  it('are removed, and the lists follow', async () => {
    const directoryId = await createDirectory(organization);
    const keep = (await generate(directoryId)).body?.sdk_key as string;
    const drop = (await generate(directoryId)).body?.sdk_key as string;
    expect((await remove(directoryId, drop)).status).toBe(204);
    expect(await list(directoryId)).toEqual([keep]);
    expect((await directoryView(directoryId))?.sdk_keys).toEqual([keep]);
  });

  it('refuse removing the last one with ORG-005', async () => {
    const directoryId = await createDirectory(organization);
    const only = (await generate(directoryId)).body?.sdk_key as string;
    expect(await refusedWith(remove(directoryId, only))).toEqual({ status: 400, code: 'ORG-005' });
    expect(await list(directoryId)).toEqual([only]);
  });

  it('refuse removing one of another directory, or an unknown one, with ORG-006', async () => {
    const directoryId = await createDirectory(organization);
    await generate(directoryId);
    await generate(directoryId);
    const otherDirectory = await createDirectory(organization);
    const foreign = (await generate(otherDirectory)).body?.sdk_key as string;
    expect(await refusedWith(remove(directoryId, foreign))).toEqual({ status: 400, code: 'ORG-006' });
    expect(await refusedWith(remove(directoryId, randomUUID()))).toEqual({ status: 400, code: 'ORG-006' });
    expect(await list(otherDirectory)).toEqual([foreign]);
  });

  it('never lose the last one to concurrent removals', async () => {
    const directoryId = await createDirectory(organization);
    const keys = await Promise.all([generate(directoryId), generate(directoryId), generate(directoryId)]);
    const outcomes = await Promise.allSettled(
      keys.map(({ body }) => remove(directoryId, body?.sdk_key as string)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    expect(await list(directoryId)).toHaveLength(1);
  });

  it('of another organization’s directory, or an unknown one, are 403', async () => {
    const other = await newOrganization(service);
    const theirs = await createDirectory(other);
    for (const directoryId of [theirs, randomUUID()]) {
      expect(await refusedWith(generate(directoryId))).toEqual({ status: 403, code: 'HTTP-403' });
      expect(await refusedWith(list(directoryId))).toEqual({ status: 403, code: 'HTTP-403' });
      expect(await refusedWith(remove(directoryId, randomUUID()))).toEqual({ status: 403, code: 'HTTP-403' });
    }
  });
});
