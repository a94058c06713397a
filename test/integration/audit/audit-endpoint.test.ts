import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '#shared/audit/audit-record';
import type { ApiClient } from '#shared/client/api-client';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { directoryClient, refusedWith } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let other: AuthScene;
const since = new Date(Date.now() - 60_000).toISOString();
const until = () => new Date(Date.now() + 60_000).toISOString();

interface Page {
  records: AuditRecord[];
  cursor?: string;
}

beforeAll(async () => {
  runtime = await startTestRuntime();
  [scene, other] = [await newAuthScene(runtime), await newAuthScene(runtime)];
  await scene.linkDevice('alice');
  await scene.linkDevice('bob');
  await scene.ask({ username: 'alice' });
  await scene.ask({ username: 'bob' });
  await other.linkDevice('alice');
  await other.ask({ username: 'alice' });
});
afterAll(async () => {
  await runtime?.stop();
});

function list(body: Record<string, unknown>, client: ApiClient = scene.organization.client) {
  return client.call<Page>('POST', '/organization/v3/audit/list', {
    body: { since, until: until(), ...body },
  });
}

async function records(body: Record<string, unknown>, client?: ApiClient): Promise<AuditRecord[]> {
  const { status, body: page } = await list(body, client);
  expect(status).toBe(200);
  return page?.records ?? [];
}

describe('POST /organization/v3/audit/list', () => {
  it("answers an organization's own records only, oldest first", async () => {
    const ours = await records({});
    expect(ours.length).toBeGreaterThan(5);
    expect(new Set(ours.map((record) => record.organization_id))).toEqual(new Set([scene.organization.id]));
    expect(ours.map((record) => record.time)).toEqual(ours.map((record) => record.time).sort());
    const theirs = await records({}, other.organization.client);
    expect(new Set(theirs.map((record) => record.organization_id))).toEqual(new Set([other.organization.id]));
    const ourRequests = new Set(ours.map((record) => record.request_id));
    expect(theirs.filter((record) => ourRequests.has(record.request_id))).toEqual([]);
  });

  it('filters by user, service and outcome', async () => {
    const alice = await records({ user: 'alice' });
    expect(alice.length).toBeGreaterThan(0);
    expect(alice.every((record) => record.user === 'alice')).toBe(true);
    expect(alice.map((record) => record.auth_event)).toContain('created');
    const service = await records({ service: scene.serviceId });
    expect(service.length).toBeGreaterThan(0);
    expect(service.every((record) => record.service_id === scene.serviceId)).toBe(true);
    expect(await records({ service: other.serviceId })).toEqual([]);
    expect(await records({ user: 'alice', service: scene.serviceId, outcome: 'refused' })).toEqual([]);
    expect((await records({ outcome: 'success' })).every((record) => record.outcome === 'success')).toBe(
      true,
    );
  });

  it('pages with an opaque cursor, bound to the range and to the organization', async () => {
    const all = await records({});
    const paged: AuditRecord[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(body?.records.length).toBeLessThanOrEqual(2);
      paged.push(...(body?.records ?? []));
      cursor = body?.cursor;
    } while (cursor);
    expect(paged).toEqual(all);

    const first = (await list({ limit: 1 })).body as Page;
    expect(first.cursor).toEqual(expect.any(String));
    expect(await refusedWith(list({ cursor: first.cursor }, other.organization.client))).toEqual({
      status: 400,
      code: 'ARG-001',
    });
    expect(
      await refusedWith(list({ cursor: first.cursor, since: new Date(Date.now() + 1000).toISOString() })),
    ).toEqual({ status: 400, code: 'ARG-001' });
    expect(await refusedWith(list({ cursor: 'bm90IGEgY3Vyc29y' }))).toEqual({ status: 400, code: 'ARG-001' });
  });

  it('refuses what is unbounded or malformed', async () => {
    const refused = { status: 400, code: 'ARG-001' };
    expect(await refusedWith(list({ limit: 1001 }))).toEqual(refused);
    expect(await refusedWith(list({ limit: 0 }))).toEqual(refused);
    expect(await refusedWith(list({ limit: 1.5 }))).toEqual(refused);
    expect((await list({ limit: 1000 })).status).toBe(200);
    expect(await refusedWith(list({ since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:01Z' }))).toEqual(
      refused,
    );
    expect((await list({ since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z' })).status).toBe(200);
    expect(await refusedWith(list({ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }))).toEqual(
      refused,
    );
    expect(await refusedWith(list({ outcome: 'maybe' }))).toEqual(refused);
    expect(await refusedWith(list({ cursor: 'x'.repeat(257) }))).toEqual(refused);
    expect(await refusedWith(list({ user: '' }))).toEqual(refused);
    expect(
      await refusedWith(scene.organization.client.call('POST', '/organization/v3/audit/list', { body: {} })),
    ).toEqual(refused);
  });

  it('is read by an organization key only', async () => {
    const directory = await directoryClient(runtime, scene.organization, scene.directoryId);
    expect(
      await refusedWith(
        directory.call('POST', '/organization/v3/audit/list', { body: { since, until: until() } }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
    expect(
      await refusedWith(
        scene.service.call('POST', '/organization/v3/audit/list', { body: { since, until: until() } }),
      ),
    ).toEqual({ status: 403, code: 'HTTP-403' });
  });
});
