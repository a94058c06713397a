import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkAuthenticator } from '#shared/authenticator/authenticator';
import { ApiClient } from '#shared/client/api-client';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import type { Answer, SignedIn } from '#test/integration/console/console-client';

/**
 * The console's actions (docs/console.md#directories onwards) over real HTTP against the local runtime: each goes
 * through the signed API's use cases, is allowed to the roles the permission table names and refused to the others
 * (CON-003), answers another organization's ids exactly as missing ones (CON-004), needs the CSRF token (CON-002), and
 * is an audit record naming the admin. Roles that must approve their sign-in are approved by a test-only stand-in.
 */
let runtime: TestRuntime;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;
let refusal: (answer: Answer) => { status: number; code: unknown };
let owner: SignedIn;
let admin: SignedIn;
let helpdesk: SignedIn;
let auditor: SignedIn;
let operator: SignedIn;
/** Another organization's directory, Directory Service and user. */
let foreign: { organizationId: string; directoryId: string; serviceId: string; identifier: string };

const missingId = '00000000-0000-4000-8000-000000000000';
let counter = 0;
const unique = (prefix: string) => `${prefix} ${Date.now()} ${(counter += 1)}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
  const support = await import('#test/integration/console/console-client');
  client = await support.consoleClient(runtime);
  refusal = support.refusal;
  [owner, admin, helpdesk, auditor, operator] = await Promise.all([
    client.signedIn('owner'),
    client.signedIn('admin'),
    client.signedIn('helpdesk'),
    client.signedIn('auditor'),
    client.signedIn('operator'),
  ]);
  const organizationId = (await client.store.organization(unique('Foreign'))).organization.id;
  const directoryId = await client.store.directory(organizationId, 'Theirs');
  const { createService } = await import('#shared/use-cases/services');
  const serviceId = await createService(
    { type: 'dir', id: directoryId },
    { name: unique('Their service') },
    new Date(),
  );
  const { ensureUser } = await import('#shared/store/users');
  await ensureUser(
    organizationId,
    { directoryId, identifier: 'their-user' },
    crypto.randomUUID(),
    new Date(),
  );
  foreign = { organizationId, directoryId, serviceId, identifier: 'their-user' };
}, 60_000);
afterAll(async () => {
  await runtime?.stop();
});

/** Two refusals read the same once the ids they name are taken out. */
function sameRefusal(a: Answer, aId: string, b: Answer, bId: string) {
  const detail = (answer: Answer, id: string) => String(answer.body?.error_detail).replaceAll(id, '<id>');
  expect(refusal(a)).toEqual({ status: 404, code: 'CON-004' });
  expect({ ...a.body, error_detail: detail(a, aId) }).toEqual({ ...b.body, error_detail: detail(b, bId) });
}

async function newDirectory(session: SignedIn = owner): Promise<string> {
  const created = await client.call('POST', '/directories', { session, body: { name: unique('Directory') } });
  expect(created.status).toBe(201);
  return created.body?.id as string;
}

async function newService(directoryId: string, session: SignedIn = admin): Promise<string> {
  const created = await client.call('POST', `/directories/${directoryId}/services`, {
    session,
    body: { name: unique('Service') },
  });
  expect(created.status).toBe(201);
  return created.body?.id as string;
}

const publicPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();

describe('directories', () => {
  it('are created in the admin’s organization and changed as the signed API changes them', async () => {
    const name = unique('Console directory');
    const created = await client.call('POST', '/directories', { session: owner, body: { name } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, organization_id: runtime.organizationId, active: true });
    const id = created.body?.id as string;

    const changed = await client.call('PATCH', `/directories/${id}`, {
      session: admin,
      body: {
        webhook_url: 'https://hooks.example/console',
        denial_context_inquiry_enabled: false,
        active: false,
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id,
      webhook_url: 'https://hooks.example/console',
      denial_context_inquiry_enabled: false,
      active: false,
    });
    // The signed API sees the same directory.
    const listed = await runtime
      .client()
      .call<{ id: string; webhook_url: string | null }[]>('POST', '/organization/v3/directories/list', {
        body: { directory_ids: [id] },
      });
    expect(listed.body?.[0]).toMatchObject({ id, webhook_url: 'https://hooks.example/console' });

    expect(refusal(await client.call('POST', '/directories', { session: owner, body: { name } }))).toEqual({
      status: 400,
      code: 'ORG-003',
    });
  });

  it('are refused to an auditor and to helpdesk, and need the CSRF token', async () => {
    const id = await newDirectory();
    for (const session of [auditor, helpdesk]) {
      expect(
        refusal(await client.call('POST', '/directories', { session, body: { name: unique('No') } })),
      ).toEqual({
        status: 403,
        code: 'CON-003',
      });
      expect(
        refusal(await client.call('PATCH', `/directories/${id}`, { session, body: { active: false } })),
      ).toEqual({ status: 403, code: 'CON-003' });
    }
    expect(
      refusal(
        await client.call('PATCH', `/directories/${id}`, {
          session: admin,
          withoutCsrf: true,
          body: { active: false },
        }),
      ),
    ).toEqual({ status: 403, code: 'CON-002' });
    expect((await client.call('GET', `/directories/${id}`, { session: admin })).body).toMatchObject({
      active: true,
    });
  });

  it('answer another organization’s id exactly as a missing one', async () => {
    sameRefusal(
      await client.call('PATCH', `/directories/${foreign.directoryId}`, {
        session: owner,
        body: { active: false },
      }),
      foreign.directoryId,
      await client.call('PATCH', `/directories/${missingId}`, { session: owner, body: { active: false } }),
      missingId,
    );
    sameRefusal(
      await client.call('POST', '/directories', {
        session: owner,
        body: { name: unique('Elsewhere'), organization_id: foreign.organizationId },
      }),
      foreign.organizationId,
      await client.call('POST', '/directories', {
        session: owner,
        body: { name: unique('Elsewhere'), organization_id: missingId },
      }),
      missingId,
    );
  });

  it('are created by the operator in the organization named, which must exist', async () => {
    const created = await client.call('POST', '/directories', {
      session: operator,
      body: { name: unique('Operator’s'), organization_id: foreign.organizationId },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organization_id: foreign.organizationId });
    expect(
      refusal(
        await client.call('POST', '/directories', { session: operator, body: { name: unique('Nowhere') } }),
      ),
    ).toEqual({ status: 404, code: 'CON-004' });
  });

  it('get and lose SDK keys, never the last', async () => {
    const id = await newDirectory();
    const first = await client.call('POST', `/directories/${id}/sdk-keys`, { session: admin });
    const second = await client.call('POST', `/directories/${id}/sdk-keys`, { session: admin });
    expect([first.status, second.status]).toEqual([201, 201]);
    const listed = await client.call('GET', `/directories/${id}/sdk-keys`, { session: auditor });
    expect((listed.body?.sdk_keys as string[]).toSorted()).toEqual(
      [first.body?.sdk_key as string, second.body?.sdk_key as string].toSorted(),
    );
    expect(
      (
        await client.call('DELETE', `/directories/${id}/sdk-keys/${first.body?.sdk_key as string}`, {
          session: admin,
        })
      ).status,
    ).toBe(204);
    expect(
      refusal(
        await client.call('DELETE', `/directories/${id}/sdk-keys/${second.body?.sdk_key as string}`, {
          session: admin,
        }),
      ),
    ).toEqual({ status: 400, code: 'ORG-005' });
    expect(refusal(await client.call('POST', `/directories/${id}/sdk-keys`, { session: helpdesk }))).toEqual({
      status: 403,
      code: 'CON-003',
    });
  });
});

describe('services', () => {
  it('are listed, created and changed in a directory, and refused to helpdesk', async () => {
    const directoryId = await newDirectory();
    const name = unique('Console service');
    const created = await client.call('POST', `/directories/${directoryId}/services`, {
      session: admin,
      body: { name, description: 'Signs people in', callback_url: 'https://app.example/callback' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      description: 'Signs people in',
      callback_url: 'https://app.example/callback',
      active: true,
      directory_id: directoryId,
    });
    const id = created.body?.id as string;
    const changed = await client.call('PATCH', `/services/${id}`, {
      session: owner,
      body: { active: false, icon: 'https://app.example/icon.png', description: null },
    });
    expect(changed.body).toMatchObject({
      id,
      active: false,
      icon: 'https://app.example/icon.png',
      description: null,
    });
    const listed = await client.call('GET', `/directories/${directoryId}/services`, { session: auditor });
    expect((listed.body?.services as { id: string }[]).map((service) => service.id)).toEqual([id]);

    expect(
      refusal(
        await client.call('POST', `/directories/${directoryId}/services`, {
          session: helpdesk,
          body: { name: unique('No') },
        }),
      ),
    ).toEqual({ status: 403, code: 'CON-003' });
    expect(
      refusal(await client.call('PATCH', `/services/${id}`, { session: auditor, body: { active: true } })),
    ).toEqual({ status: 403, code: 'CON-003' });
    // The signed API's rule: a name another service uses.
    expect(
      refusal(
        await client.call('POST', `/directories/${directoryId}/services`, { session: admin, body: { name } }),
      ),
    ).toEqual({ status: 400, code: 'SVC-001' });
  });

  it('are the organization’s own too, created by its admins, and never another organization’s', async () => {
    const name = unique('Organization service');
    const path = `/organizations/${runtime.organizationId}/services`;
    const created = await client.call('POST', path, { session: admin, body: { name } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, organization_id: runtime.organizationId, directory_id: null });
    const id = created.body?.id as string;
    const listed = await client.call('GET', path, { session: auditor });
    expect((listed.body?.services as { id: string }[]).map((service) => service.id)).toContain(id);
    expect(
      (await client.call('PUT', `/services/${id}/policy`, { session: admin, body: { amount: 1 } })).body
        ?.summary,
    ).toBe('At least 1 method.');
    expect(
      refusal(await client.call('POST', path, { session: helpdesk, body: { name: unique('No') } })),
    ).toEqual({
      status: 403,
      code: 'CON-003',
    });
    sameRefusal(
      await client.call('POST', `/organizations/${foreign.organizationId}/services`, {
        session: admin,
        body: { name: unique('Theirs') },
      }),
      foreign.organizationId,
      await client.call('POST', `/organizations/${missingId}/services`, {
        session: admin,
        body: { name: unique('None') },
      }),
      missingId,
    );
  });

  it('take a policy of factors and fences, shown back with a readable summary', async () => {
    const id = await newService(await newDirectory());
    const set = await client.call('PUT', `/services/${id}/policy`, {
      session: admin,
      body: {
        factors: ['knowledge', 'possession'],
        fences: [
          { type: 'circle', name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 },
          { type: 'territory', country: 'US', administrative_area: 'US-NV' },
        ],
        deny_rooted_jailbroken: true,
      },
    });
    expect(set.status).toBe(200);
    expect(set.body?.policy).toMatchObject({
      type: 'FACTORS',
      factors: ['KNOWLEDGE', 'POSSESSION'],
      deny_rooted_jailbroken: true,
    });
    expect(set.body?.summary).toBe(
      'Factors: knowledge (something the user knows) and possession (something the user has); inside “Office”: 500 m around 36.12, -115.17 or US-NV; not on a rooted or jailbroken device.',
    );
    const read = await client.call('GET', `/services/${id}/policy`, { session: auditor });
    expect(read.body).toEqual(set.body);
    // What the signed API reads is what the console set.
    const signed = await runtime.client().call('POST', '/directory/v3/service/policy/item', {
      subject: `dir:${(await client.call('GET', `/services/${id}`, { session: auditor })).body?.directory_id as string}`,
      body: { service_id: id },
    });
    expect(signed.body).toEqual(set.body?.policy);

    const amount = await client.call('PUT', `/services/${id}/policy`, {
      session: admin,
      body: { amount: 2 },
    });
    expect(amount.body?.summary).toBe('At least 2 methods.');
    expect(
      refusal(
        await client.call('PUT', `/services/${id}/policy`, {
          session: admin,
          body: { factors: [], amount: 1 },
        }),
      ),
    ).toEqual({ status: 400, code: 'SVC-002' });
    // The use case's own check: a circle of radius 0.
    expect(
      refusal(
        await client.call('PUT', `/services/${id}/policy`, {
          session: admin,
          body: { amount: 1, fences: [{ type: 'circle', latitude: 0, longitude: 0, radius: 0 }] },
        }),
      ),
    ).toEqual({ status: 400, code: 'SVC-002' });
    expect(
      refusal(await client.call('PUT', `/services/${id}/policy`, { session: helpdesk, body: { amount: 1 } })),
    ).toEqual({ status: 403, code: 'CON-003' });
    const removed = await client.call('DELETE', `/services/${id}/policy`, { session: admin });
    expect(removed.body?.summary).toBe('Nothing beyond the linked device.');
  });

  it('answer another organization’s service and directory exactly as missing ones', async () => {
    for (const [method, path, body] of [
      ['GET', '/services/{id}', undefined],
      ['PATCH', '/services/{id}', { active: false }],
      ['GET', '/services/{id}/policy', undefined],
      ['PUT', '/services/{id}/policy', { amount: 1 }],
    ] as const) {
      sameRefusal(
        await client.call(method, path.replace('{id}', foreign.serviceId), { session: admin, body }),
        foreign.serviceId,
        await client.call(method, path.replace('{id}', missingId), { session: admin, body }),
        missingId,
      );
    }
    sameRefusal(
      await client.call('POST', `/directories/${foreign.directoryId}/services`, {
        session: admin,
        body: { name: unique('Theirs') },
      }),
      foreign.directoryId,
      await client.call('POST', `/directories/${missingId}/services`, {
        session: admin,
        body: { name: unique('None') },
      }),
      missingId,
    );
  });
});

describe('keys', () => {
  it('are added, deactivated, expired and removed at a service, never the last, and refused to helpdesk', async () => {
    const id = await newService(await newDirectory());
    const first = await client.call('POST', `/services/${id}/keys`, {
      session: admin,
      body: { public_key: publicPem() },
    });
    const second = await client.call('POST', `/services/${id}/keys`, {
      session: admin,
      body: { public_key: publicPem() },
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    const kid = first.body?.key_id as string;
    const changed = await client.call('PATCH', `/services/${id}/keys/${kid}`, {
      session: admin,
      body: { active: false, date_expires: '2099-01-01T00:00:00Z' },
    });
    expect(changed.body).toMatchObject({ id: kid, active: false, date_expires: '2099-01-01T00:00:00Z' });
    const listed = await client.call('GET', `/services/${id}/keys`, { session: auditor });
    // Listed by creation time to the second, then by id: two keys added within a second come in either order.
    expect((listed.body?.keys as { id: string }[]).map((key) => key.id).toSorted()).toEqual(
      [kid, second.body?.key_id as string].toSorted(),
    );

    expect(
      refusal(
        await client.call('POST', `/services/${id}/keys`, {
          session: helpdesk,
          body: { public_key: publicPem() },
        }),
      ),
    ).toEqual({ status: 403, code: 'CON-003' });
    expect(
      refusal(await client.call('DELETE', `/services/${id}/keys/${kid}`, { session: helpdesk })),
    ).toEqual({
      status: 403,
      code: 'CON-003',
    });
    expect(
      refusal(
        await client.call('POST', `/services/${id}/keys`, {
          session: admin,
          body: { public_key: 'not a key' },
        }),
      ),
    ).toEqual({ status: 400, code: 'KEY-001' });
    expect((await client.call('DELETE', `/services/${id}/keys/${kid}`, { session: admin })).status).toBe(204);
    expect(
      refusal(
        await client.call('DELETE', `/services/${id}/keys/${second.body?.key_id as string}`, {
          session: admin,
        }),
      ),
    ).toEqual({ status: 400, code: 'KEY-004' });
  });

  it('are added at a directory, and at the organization by its owner only', async () => {
    const directoryId = await newDirectory();
    expect(
      (
        await client.call('POST', `/directories/${directoryId}/keys`, {
          session: admin,
          body: { public_key: publicPem() },
        })
      ).status,
    ).toBe(201);
    const path = `/organizations/${runtime.organizationId}/keys`;
    expect(
      refusal(await client.call('POST', path, { session: admin, body: { public_key: publicPem() } })),
    ).toEqual({
      status: 403,
      code: 'CON-003',
    });
    const added = await client.call('POST', path, { session: owner, body: { public_key: publicPem() } });
    expect(added.status).toBe(201);
    const listed = await client.call('GET', path, { session: auditor });
    expect((listed.body?.keys as { id: string }[]).map((key) => key.id)).toContain(added.body?.key_id);
    sameRefusal(
      await client.call('GET', `/organizations/${foreign.organizationId}/keys`, { session: owner }),
      foreign.organizationId,
      await client.call('GET', `/organizations/${missingId}/keys`, { session: owner }),
      missingId,
    );
    sameRefusal(
      await client.call('POST', `/directories/${foreign.directoryId}/keys`, {
        session: admin,
        body: { public_key: publicPem() },
      }),
      foreign.directoryId,
      await client.call('POST', `/directories/${missingId}/keys`, {
        session: admin,
        body: { public_key: publicPem() },
      }),
      missingId,
    );
  });

  it('made in the test and added in the console sign the service’s own auth requests', async () => {
    const directoryId = await newDirectory();
    const serviceId = await newService(directoryId);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const added = await client.call('POST', `/services/${serviceId}/keys`, {
      session: admin,
      body: { public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    expect(added.status).toBe(201);
    const started = await client.call('POST', `/directories/${directoryId}/users/ada/links`, {
      session: helpdesk,
      body: {},
    });
    const state = await linkAuthenticator({ baseUrl: runtime.baseUrl, code: started.body?.code as string });

    const service = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `svc:${serviceId}`,
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    expect(service.kid).toBe(added.body?.key_id);
    const auth = await service.call<{ auth_request: string; device_ids: string[] }>(
      'POST',
      '/service/v3/auths',
      {
        body: { username: 'ada' },
      },
    );
    expect(auth.status).toBe(201);
    expect(auth.body?.device_ids).toEqual([state.deviceId]);
  });
});

describe('users (helpdesk)', () => {
  it('are found with their devices, sessions and TOTP state; helpdesk unlinks, relinks and resets TOTP', async () => {
    const directoryId = await newDirectory();
    const user = `/directories/${directoryId}/users/grace`;
    const started = await client.call('POST', `${user}/links`, { session: helpdesk, body: { ttl: 600 } });
    expect(started.status).toBe(201);
    expect(started.body?.code).toMatch(/^[A-Z2-9]{8}$/);
    expect(new URL(started.body?.qrcode as string).pathname).toBe(
      `/public/v3/qrcodes/${started.body?.code as string}`,
    );
    expect(new URL(started.body?.url as string).hash).toBe(`#code=${started.body?.code as string}`);
    expect(new URL(started.body?.url as string).pathname).toBe('/authenticator/');
    const lasts = Date.parse(started.body?.expires_at as string) - Date.now();
    expect(lasts > 590_000 && lasts <= 600_000).toBe(true);
    const state = await linkAuthenticator({
      baseUrl: runtime.baseUrl,
      code: started.body?.code as string,
      name: 'Phone',
    });
    await runtime.client().call('POST', '/directory/v3/totp', {
      subject: `dir:${directoryId}`,
      body: { identifier: 'grace' },
    });

    const found = await client.call('GET', user, { session: auditor });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      identifier: 'grace',
      devices: [{ id: state.deviceId, name: 'Phone', status: 1, status_name: 'linked' }],
      sessions: [],
      totp: { configured: true, locked: false },
      fraud_lock: null,
    });

    expect(
      refusal(await client.call('DELETE', `${user}/devices/${state.deviceId}`, { session: auditor })),
    ).toEqual({ status: 403, code: 'CON-003' });
    expect(
      (await client.call('DELETE', `${user}/devices/${state.deviceId}`, { session: helpdesk })).status,
    ).toBe(204);
    expect((await client.call('DELETE', `${user}/totp`, { session: helpdesk })).status).toBe(204);
    const after = await client.call('GET', user, { session: helpdesk });
    expect(after.body).toMatchObject({ devices: [], totp: { configured: false } });
    expect(
      refusal(await client.call('DELETE', `${user}/devices/${state.deviceId}`, { session: helpdesk })),
    ).toEqual({ status: 404, code: 'CON-004' });

    const relinked = await client.call('POST', `${user}/links`, { session: helpdesk, body: {} });
    expect(relinked.status).toBe(201);
    expect((await client.call('GET', user, { session: helpdesk })).body?.devices).toMatchObject([
      { id: relinked.body?.device_id, status_name: 'link-pending', answers_from: null },
    ]);
    // Linked after helpdesk's unlink, the new device cools off, and helpdesk sees until when.
    await linkAuthenticator({ baseUrl: runtime.baseUrl, code: relinked.body?.code as string });
    const [cooling] = (await client.call('GET', user, { session: helpdesk })).body?.devices as {
      status_name: string;
      answers_from: string | null;
    }[];
    expect(cooling?.status_name).toBe('linked');
    expect(Date.parse(cooling?.answers_from ?? '')).toBeGreaterThan(Date.now() + 86_400_000);
  });

  it('have a fraud lock cleared by helpdesk, once', async () => {
    const directoryId = await newDirectory();
    await client.call('POST', `/directories/${directoryId}/users/linus/links`, {
      session: helpdesk,
      body: {},
    });
    const { lockUser } = await import('#shared/store/push-fatigue');
    await lockUser(directoryId, 'linus', Math.floor(Date.now() / 1000) + 3600);
    const user = `/directories/${directoryId}/users/linus`;
    expect((await client.call('GET', user, { session: helpdesk })).body?.fraud_lock).toMatchObject({
      identifier: 'linus',
    });
    expect(refusal(await client.call('DELETE', `${user}/fraud-lock`, { session: auditor }))).toEqual({
      status: 403,
      code: 'CON-003',
    });
    expect((await client.call('DELETE', `${user}/fraud-lock`, { session: helpdesk })).status).toBe(204);
    expect((await client.call('GET', user, { session: helpdesk })).body?.fraud_lock).toBeNull();
    expect(refusal(await client.call('DELETE', `${user}/fraud-lock`, { session: helpdesk }))).toEqual({
      status: 404,
      code: 'CON-004',
    });
  });

  it('of another organization answer exactly as missing ones', async () => {
    const theirs = `/directories/${foreign.directoryId}/users/${foreign.identifier}`;
    const none = `/directories/${missingId}/users/${foreign.identifier}`;
    sameRefusal(
      await client.call('GET', theirs, { session: helpdesk }),
      foreign.directoryId,
      await client.call('GET', none, { session: helpdesk }),
      missingId,
    );
    sameRefusal(
      await client.call('POST', `${theirs}/links`, { session: helpdesk, body: {} }),
      foreign.directoryId,
      await client.call('POST', `${none}/links`, { session: helpdesk, body: {} }),
      missingId,
    );
    const ownDirectory = await newDirectory();
    expect(
      refusal(await client.call('GET', `/directories/${ownDirectory}/users/nobody`, { session: helpdesk })),
    ).toEqual({
      status: 404,
      code: 'CON-004',
    });
  });
});

describe('the audit trail', () => {
  it('names the admin, their role and session for each change, in the organization it touched', async () => {
    const since = new Date(Date.now() - 1000);
    const id = await newDirectory(admin);
    await client.call('PATCH', `/directories/${id}`, { session: admin, body: { webhook_url: null } });
    await client.call('POST', '/directories', { session: auditor, body: { name: unique('Refused') } });
    const records = await client.store.consoleRecords(runtime.organizationId, since);
    // This directory's, since the same admin's changes in the tests before may fall in the same second.
    const mine = records.filter(
      (record) => record.actor_id === `console:${admin.adminId}` && record.directory_id === id,
    );
    expect(
      mine.map((record) => [record.operation, record.directory_id, record.target_id, record.outcome]),
    ).toEqual([
      ['POST /console/api/directories', id, id, 'success'],
      ['PATCH /console/api/directories/{id}', id, id, 'success'],
    ]);
    expect(
      mine.every(
        (record) => record.admin_role === 'admin' && /^[A-Za-z0-9_-]{16}$/.test(record.session_id ?? ''),
      ),
    ).toBe(true);

    const operatorSince = new Date(Date.now() - 1000);
    await client.call('POST', '/directories', {
      session: operator,
      body: { name: unique('For them'), organization_id: foreign.organizationId },
    });
    const theirs = await client.store.consoleRecords(foreign.organizationId, operatorSince);
    expect(theirs.map((record) => [record.actor_id, record.admin_role, record.operation])).toEqual([
      [`console:${operator.adminId}`, 'operator', 'POST /console/api/directories'],
    ]);
  });
});

describe('reading the audit trail', () => {
  const query = (parameters: Record<string, string>) => `?${new URLSearchParams(parameters).toString()}`;

  it('filters by actor, operation, outcome and user, a page at a time, for any role that reads', async () => {
    // An admin of its own, whose records are these only.
    const admin = await client.signedIn('admin');
    const since = new Date(Date.now() - 1000).toISOString();
    const directoryId = await newDirectory(admin);
    await client.call('PATCH', `/directories/${directoryId}`, { session: admin, body: { active: false } });
    await client.call('PATCH', `/directories/${directoryId}`, { session: admin, body: { active: true } });
    await client.call('PATCH', `/directories/${missingId}`, { session: admin, body: { active: true } });
    await client.call('POST', `/directories/${directoryId}/users/alan/links`, {
      session: helpdesk,
      body: {},
    });
    const until = new Date(Date.now() + 1000).toISOString();
    const range = { since, until };
    const actor = `console:${admin.adminId}`;

    const changes = await client.call(
      'GET',
      `/audit/records${query({ ...range, actor, operation: 'PATCH /console/api/directories/{id}' })}`,
      { session: auditor },
    );
    expect(changes.status).toBe(200);
    const records = changes.body?.records as { directory_id?: string; outcome: string; actor_id: string }[];
    expect(records.map((record) => [record.actor_id, record.outcome])).toEqual([
      [actor, 'success'],
      [actor, 'success'],
      [actor, 'refused'],
    ]);
    const refused = await client.call(
      'GET',
      `/audit/records${query({ ...range, actor, outcome: 'refused' })}`,
      {
        session: auditor,
      },
    );
    expect((refused.body?.records as unknown[]).length).toBe(1);
    const forUser = await client.call('GET', `/audit/records${query({ ...range, user: 'alan' })}`, {
      session: helpdesk,
    });
    expect(forUser.body?.records).toMatchObject([
      {
        actor_id: `console:${helpdesk.adminId}`,
        operation: 'POST /console/api/directories/{id}/users/{identifier}/links',
      },
    ]);

    const first = await client.call('GET', `/audit/records${query({ ...range, actor, limit: '2' })}`, {
      session: auditor,
    });
    expect((first.body?.records as unknown[]).length).toBe(2);
    const next = await client.call(
      'GET',
      `/audit/records${query({ ...range, actor, limit: '2', cursor: first.body?.cursor as string })}`,
      { session: auditor },
    );
    expect((next.body?.records as unknown[]).length).toBe(2);
  });

  it('exports CSV and JSON as files', async () => {
    const admin = await client.signedIn('admin');
    const since = new Date(Date.now() - 1000).toISOString();
    await newDirectory(admin);
    const range = {
      since,
      until: new Date(Date.now() + 1000).toISOString(),
      actor: `console:${admin.adminId}`,
      operation: 'POST /console/api/directories',
    };
    const csv = await fetch(
      `${client.origin}/console/api/audit/export${query({ ...range, format: 'csv' })}`,
      {
        headers: { cookie: auditor.cookie },
      },
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="audit-[0-9a-f-]+-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^"time","organization_id",/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain(`"console:${admin.adminId}","admin"`);
    const json = await fetch(`${client.origin}/console/api/audit/export${query(range)}`, {
      headers: { cookie: auditor.cookie },
    });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(((await json.json()) as { records: unknown[] }).records).toHaveLength(1);
  });

  it('is the admin’s organization’s only; the operator names one; the range and fields are bounded', async () => {
    const range = { since: new Date(Date.now() - 60_000).toISOString(), until: new Date().toISOString() };
    sameRefusal(
      await client.call(
        'GET',
        `/audit/records${query({ ...range, organization_id: foreign.organizationId })}`,
        {
          session: auditor,
        },
      ),
      foreign.organizationId,
      await client.call('GET', `/audit/records${query({ ...range, organization_id: missingId })}`, {
        session: auditor,
      }),
      missingId,
    );
    expect(refusal(await client.call('GET', `/audit/records${query(range)}`, { session: operator }))).toEqual(
      {
        status: 404,
        code: 'CON-004',
      },
    );
    expect(
      (
        await client.call(
          'GET',
          `/audit/records${query({ ...range, organization_id: foreign.organizationId })}`,
          {
            session: operator,
          },
        )
      ).status,
    ).toBe(200);
    const long = await client.call(
      'GET',
      `/audit/records${query({ since: '2026-01-01T00:00:00Z', until: '2026-03-01T00:00:00Z' })}`,
      { session: auditor },
    );
    expect(refusal(long)).toEqual({ status: 400, code: 'ARG-001' });
    const wrong = await client.call('GET', `/audit/records${query({ ...range, actor: 'x'.repeat(201) })}`, {
      session: auditor,
    });
    expect(refusal(wrong)).toEqual({ status: 400, code: 'ARG-001' });
    expect(wrong.body?.error_detail).toContain('actor');
    expect(refusal(await client.call('GET', `/audit/records${query(range)}`))).toEqual({
      status: 401,
      code: 'CON-001',
    });
  });
});
