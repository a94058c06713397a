import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '#shared/errors';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;
let createOrganization: typeof import('#shared/use-cases/create-organization').createOrganization;
let addEntityKey: typeof import('#shared/use-cases/entity-keys').addEntityKey;
let store: typeof import('#shared/store/organizations') & typeof import('#shared/store/entity-keys');
let apiKeys: typeof import('#shared/use-cases/api-keys');
let keyRingStorage: typeof import('#shared/api-keys/key-ring-storage');

beforeAll(async () => {
  service = await startTestRuntime();
  ({ createOrganization } = await import('#shared/use-cases/create-organization'));
  ({ addEntityKey } = await import('#shared/use-cases/entity-keys'));
  store = {
    ...(await import('#shared/store/organizations')),
    ...(await import('#shared/store/entity-keys')),
  };
  apiKeys = await import('#shared/use-cases/api-keys');
  keyRingStorage = await import('#shared/api-keys/key-ring-storage');
});
afterAll(async () => {
  await service?.stop();
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  return promise.then(
    () => expect.fail('expected a refusal'),
    (error: ApiError) => error,
  );
}

describe('creating an organization', () => {
  it('generates a key pair when none is given, and returns its private half once', async () => {
    const created = await createOrganization({ name: '  Padded  ' });
    expect(created.organization.name).toBe('Padded');
    expect(created.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const [key] = await store.listEntityKeys({ type: 'org', id: created.organization.id });
    expect(key).toMatchObject({ kid: created.key.kid, keyType: 0, active: true, expires: null });
    expect(await store.getOrganization(created.organization.id)).toEqual(created.organization);
  });

  it('registers a given public key, PKCS#1 included, under its fingerprint', async () => {
    const pair = rsaKeyPair();
    const pkcs1 = pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const created = await createOrganization({ name: 'Given key', publicKeyPem: pkcs1 });
    expect(created.privateKeyPem).toBeUndefined();
    expect(created.key.kid).toBe(pair.kid);
  });

  it.each([
    ['an empty name', { name: '   ' }, 'ARG-001'],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, 'ARG-001'],
    ['a key that is not RSA', { name: 'EC', publicKeyPem: ecPublicKey() }, 'KEY-001'],
    [
      'a key whose public exponent is above 32 bits',
      { name: 'Big e', publicKeyPem: rsaPublicKeyOfBits(2048, 2n ** 32n + 1n) },
      'KEY-001',
    ],
  ])('refuses %s and writes nothing', async (_, input, code) => {
    const before = (await store.listOrganizations()).length;
    expect((await failure(createOrganization(input))).code).toBe(code);
    expect(await store.listOrganizations()).toHaveLength(before);
  });
});

describe('adding an entity key', () => {
  it('refuses the same key twice on one entity with KEY-002', async () => {
    const { organization } = await createOrganization({ name: 'Twice' });
    const pair = rsaKeyPair();
    await addEntityKey({ type: 'org', id: organization.id }, { publicKeyPem: pair.publicPem });
    expect(
      (await failure(addEntityKey({ type: 'org', id: organization.id }, { publicKeyPem: pair.publicPem })))
        .code,
    ).toBe('KEY-002');
  });

  it('refuses a key_type other than 0, 1 or 2 with ARG-001', async () => {
    const error = await failure(
      addEntityKey(
        { type: 'org', id: service.organizationId },
        { publicKeyPem: rsaKeyPair().publicPem, keyType: 3 },
      ),
    );
    expect(error.code).toBe('ARG-001');
  });

  it('names the reason of an invalid key in KEY-001', async () => {
    const error = await failure(
      addEntityKey({ type: 'org', id: service.organizationId }, { publicKeyPem: 'nonsense' }),
    );
    expect({ code: error.code, detail: error.detail }).toEqual({
      code: 'KEY-001',
      detail: expect.stringMatching(/expected a PEM public key/),
    });
  });
});

describe('API keys', () => {
  const current = async () =>
    (await fetch(`${service.baseUrl}/public/v3/public-key`)).headers.get('x-iov-key-id');

  it('adds a key without making it current, then makes it current by kid', async () => {
    const storage = keyRingStorage.fileKeyRingStorage(service.runtime.apiKeysFile);
    const before = await current();
    const added = await apiKeys.addApiKey(storage, { bits: 2048, makeCurrent: false });
    expect(await current()).toBe(before);
    expect((await fetch(`${service.baseUrl}/public/v3/public-key/${added.kid}`)).status).toBe(200);
    expect((await storage.read())?.keys.map((key) => key.kid)).toContain(added.kid);

    await apiKeys.makeApiKeyCurrent(storage, added.kid);
    expect(await current()).toBe(added.kid);
    expect((await storage.read())?.current).toBe(added.kid);
    await expect(apiKeys.makeApiKeyCurrent(storage, '00:11')).rejects.toThrow(/has no key 00:11/);
  });

  it('republishes the ring’s public keys to a table that lost them', async () => {
    const storage = keyRingStorage.fileKeyRingStorage(service.runtime.apiKeysFile);
    const ring = await storage.read();
    if (!ring) throw new Error('no ring');
    await apiKeys.publishApiKeyRing(ring);
    for (const key of ring.keys) {
      expect((await fetch(`${service.baseUrl}/public/v3/public-key/${key.kid}`)).status).toBe(200);
    }
    await expect(apiKeys.publishApiKeyRing({ ...ring, current: 'missing' })).rejects.toThrow(
      /holds no such key/,
    );
  });
});

function ecPublicKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
}
