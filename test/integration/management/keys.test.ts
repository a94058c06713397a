import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '#shared/client/api-client';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { rsaKeyPair, type TestKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import {
  createDirectory,
  newOrganization,
  type Organization,
  refusal,
  refusedWith,
  uniqueName,
} from '#test/support/tree';

const alphaPublicKey = readFileSync(new URL('../../fixtures/alpha-public-key.pem', import.meta.url), 'utf8');

let service: TestRuntime;
let organization: Organization;

beforeAll(async () => {
  service = await startTestRuntime();
  organization = await newOrganization(service);
});
afterAll(async () => {
  await service?.stop();
});

/** One kind of key owner, with what its endpoints need. */
interface KeyOwner {
  readonly path: string;
  readonly idField: 'directory_id' | 'service_id';
  readonly id: string;
  /** The entity string a key of this owner signs as. */
  readonly issuer: string;
  readonly subject?: string;
  /** A request the owner can sign for itself, to see a key work or not. */
  readonly probe: { method: string; path: string };
}

const owners: Record<string, () => Promise<KeyOwner>> = {
  'a directory (organization endpoints)': async () => {
    const id = await createDirectory(organization);
    return {
      path: '/organization/v3/directory/keys',
      idField: 'directory_id',
      id,
      issuer: `dir:${id}`,
      probe: { method: 'GET', path: '/directory/v3/services' },
    };
  },
  'an Organization Service': async () => {
    const { body } = await organization.client.call<{ id: string }>('POST', '/organization/v3/services', {
      body: { name: uniqueName('Keyed') },
    });
    const id = (body as { id: string }).id;
    return {
      path: '/organization/v3/service/keys',
      idField: 'service_id',
      id,
      issuer: `svc:${id}`,
      probe: { method: 'GET', path: '/service/v3/no-such-operation' },
    };
  },
  'a Directory Service (directory endpoints)': async () => {
    const directoryId = await createDirectory(organization);
    const subject = `dir:${directoryId}`;
    const { body } = await organization.client.call<{ id: string }>('POST', '/directory/v3/services', {
      body: { name: uniqueName('Dir keyed') },
      subject,
    });
    const id = (body as { id: string }).id;
    return {
      path: '/directory/v3/service/keys',
      idField: 'service_id',
      id,
      issuer: `svc:${id}`,
      subject,
      probe: { method: 'GET', path: '/service/v3/no-such-operation' },
    };
  },
};

function call(owner: KeyOwner, method: string, suffix: string, body: Record<string, unknown>) {
  return organization.client.call<unknown>(method, `${owner.path}${suffix}`, {
    body: { [owner.idField]: owner.id, ...body },
    ...(owner.subject ? { subject: owner.subject } : {}),
  });
}

async function add(owner: KeyOwner, pair: TestKeyPair | string, fields: Record<string, unknown> = {}) {
  const publicKey = typeof pair === 'string' ? pair : pair.publicPem;
  const { status, body } = await call(owner, 'POST', '', { public_key: publicKey, ...fields });
  return { status, body: body as { key_id: string } };
}

async function keys(owner: KeyOwner) {
  return ((await call(owner, 'POST', '/list', {})).body ?? []) as Record<string, unknown>[];
}

/** Whether a key can sign for its owner right now: any answer but 401 means the signature was accepted. */
async function signs(owner: KeyOwner, pair: TestKeyPair): Promise<boolean> {
  const client = new ApiClient({
    baseUrl: service.baseUrl,
    issuer: owner.issuer,
    privateKeyPem: pair.privatePem,
  });
  const outcome = await client.call(owner.probe.method, owner.probe.path).then(
    () => 200,
    (error: { status?: number }) => error.status,
  );
  return outcome !== 401;
}

describe.each(Object.keys(owners))('keys of %s', (kind) => {
  let owner: KeyOwner;
  beforeAll(async () => {
    owner = await (owners[kind] as () => Promise<KeyOwner>)();
  });

  it('are added under their fingerprint, default to key_type 0, and list with every field', async () => {
    const added = await add(owner, alphaPublicKey);
    expect(added).toEqual({
      status: 201,
      body: { key_id: 'e6:60:3f:95:ea:c8:4d:2b:98:18:c0:0c:28:e8:9f:bb' },
    });
    const listed = (await keys(owner)).find((key) => key.id === added.body.key_id);
    expect(listed).toEqual({
      id: 'e6:60:3f:95:ea:c8:4d:2b:98:18:c0:0c:28:e8:9f:bb',
      public_key: alphaPublicKey,
      date_created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      date_expires: null,
      active: true,
      key_type: 0,
    });
  });

  it('keep the key_type, active flag and expiry they are given, the expiry in UTC to the second', async () => {
    const pair = rsaKeyPair();
    const { body } = await add(owner, pair, {
      key_type: 2,
      active: false,
      date_expires: '2031-05-06T07:08:09.123+02:00',
    });
    expect((await keys(owner)).find((key) => key.id === body.key_id)).toMatchObject({
      key_type: 2,
      active: false,
      date_expires: '2031-05-06T05:08:09Z',
    });
  });

  it.each([
    ['a key twice', 'KEY-002'],
    ['text that is not a key', 'KEY-001'],
    ['a private key', 'KEY-001'],
    ['a key whose public exponent has 3 071 bits', 'KEY-001'],
    ['key_type 3', 'ARG-001'],
    ['a date_expires that is not ISO 8601', 'ARG-001'],
  ])('refuse %s with %s', async (what, code) => {
    const pair = rsaKeyPair();
    const attempt = {
      'a key twice': async () => {
        await add(owner, pair);
        return add(owner, pair);
      },
      'text that is not a key': () => add(owner, 'hello'),
      'a private key': () => add(owner, pair.privatePem),
      'a key whose public exponent has 3 071 bits': () =>
        add(owner, rsaPublicKeyOfBits(3072, (1n << 3070n) + 1n)),
      'key_type 3': () => add(owner, pair, { key_type: 3 }),
      'a date_expires that is not ISO 8601': () => add(owner, pair, { date_expires: 'next tuesday' }),
    }[what] as () => Promise<unknown>;
    const error = await refusal(attempt());
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code });
    expect(String(error.errorDetail)).toMatch(code === 'KEY-001' ? /^Invalid public key: / : /./);
  });

  it('sign for their owner, stop at once when deactivated or expired, and work again when reactivated', async () => {
    const pair = rsaKeyPair();
    const { body } = await add(owner, pair);
    expect(await signs(owner, pair)).toBe(true);
    expect((await call(owner, 'PATCH', '', { key_id: body.key_id, active: false })).status).toBe(204);
    expect(await signs(owner, pair)).toBe(false);
    await call(owner, 'PATCH', '', { key_id: body.key_id, active: true });
    expect(await signs(owner, pair)).toBe(true);
    await call(owner, 'PATCH', '', { key_id: body.key_id, date_expires: '2020-01-01T00:00:00Z' });
    expect(await signs(owner, pair)).toBe(false);
    await call(owner, 'PATCH', '', { key_id: body.key_id, date_expires: null });
    expect(await signs(owner, pair)).toBe(true);
    expect((await keys(owner)).find((key) => key.id === body.key_id)).toMatchObject({
      active: true,
      date_expires: null,
    });
  });

  it('an active null leaves the flag as it is (the Java SDK sends both fields)', async () => {
    const { body } = await add(owner, rsaKeyPair(), { active: false });
    await call(owner, 'PATCH', '', {
      key_id: body.key_id,
      active: null,
      date_expires: '2030-01-01T00:00:00Z',
    });
    expect((await keys(owner)).find((key) => key.id === body.key_id)).toMatchObject({
      active: false,
      date_expires: '2030-01-01T00:00:00Z',
    });
  });

  it('refuse to update or remove an unknown key with KEY-003', async () => {
    const unknown = '00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff';
    expect(await refusedWith(call(owner, 'PATCH', '', { key_id: unknown, active: false }))).toEqual({
      status: 400,
      code: 'KEY-003',
    });
    expect(await refusedWith(call(owner, 'DELETE', '', { key_id: unknown }))).toEqual({
      status: 400,
      code: 'KEY-003',
    });
  });

  it('are removed, but never the last one (KEY-004)', async () => {
    const fresh = await (owners[kind] as () => Promise<KeyOwner>)();
    const first = await add(fresh, rsaKeyPair());
    const second = await add(fresh, rsaKeyPair());
    expect((await call(fresh, 'DELETE', '', { key_id: first.body.key_id })).status).toBe(204);
    expect((await keys(fresh)).map((key) => key.id)).toEqual([second.body.key_id]);
    expect(await refusedWith(call(fresh, 'DELETE', '', { key_id: second.body.key_id }))).toEqual({
      status: 400,
      code: 'KEY-004',
    });
  });

  it('of which concurrent removals never take the last', async () => {
    const fresh = await (owners[kind] as () => Promise<KeyOwner>)();
    const added = await Promise.all([
      add(fresh, rsaKeyPair()),
      add(fresh, rsaKeyPair()),
      add(fresh, rsaKeyPair()),
    ]);
    const outcomes = await Promise.allSettled(
      added.map(({ body }) => call(fresh, 'DELETE', '', { key_id: body.key_id })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    expect(
      (outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason,
    ).toMatchObject({
      errorCode: 'KEY-004',
    });
    expect(await keys(fresh)).toHaveLength(1);
  });
});

describe('keys of what the caller does not own', () => {
  it.each([
    ['another organization’s directory', '/organization/v3/directory/keys', 'directory_id'],
    ['an unknown directory', '/organization/v3/directory/keys', 'directory_id'],
    ['another organization’s service', '/organization/v3/service/keys', 'service_id'],
    ['an unknown service', '/organization/v3/service/keys', 'service_id'],
  ] as const)('%s → 403 on every operation', async (what, path, idField) => {
    let id: string = randomUUID();
    if (what.startsWith('another')) {
      const other = await newOrganization(service);
      id =
        idField === 'directory_id'
          ? await createDirectory(other)
          : (
              (
                await other.client.call<{ id: string }>('POST', '/organization/v3/services', {
                  body: { name: uniqueName('X') },
                })
              ).body as { id: string }
            ).id;
    }
    const pair = rsaKeyPair();
    for (const [method, suffix, body] of [
      ['POST', '', { public_key: pair.publicPem }],
      ['POST', '/list', {}],
      ['PATCH', '', { key_id: pair.kid, active: false }],
      ['DELETE', '', { key_id: pair.kid }],
    ] as const) {
      const attempt = organization.client.call(method, `${path}${suffix}`, {
        body: { [idField]: id, ...body },
      });
      expect(await refusedWith(attempt)).toEqual({ status: 403, code: 'HTTP-403' });
    }
  });
});
