import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { makeServiceAccount } from '#test/support/service-account';
import {
  createDirectory,
  newOrganization,
  type Organization,
  refusal,
  refusedWith,
  uniqueName,
} from '#test/support/tree';

const p12Fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/${name}.p12.base64`, import.meta.url), 'utf8').trim();
const alphaP12 = p12Fixture('alpha');
const alphaFingerprint =
  '7A:31:98:AD:89:68:19:63:39:75:34:A2:E6:9A:00:4E:42:DB:E0:33:7C:14:57:5D:C0:E5:90:B9:36:DD:BB:FA';

let service: TestRuntime;
let organization: Organization;

beforeAll(async () => {
  service = await startTestRuntime();
  organization = await newOrganization(service);
});
afterAll(async () => {
  await service?.stop();
});

const directoryFields = [
  'active',
  'android_key',
  'denial_context_inquiry_enabled',
  'id',
  'ios_certificate_fingerprint',
  'name',
  'premium',
  'sdk_keys',
  'service_ids',
  'webhook_url',
];

async function getDirectory(id: string, org = organization) {
  const { body } = await org.client.call<Record<string, unknown>[]>(
    'POST',
    '/organization/v3/directories/list',
    {
      body: { directory_ids: [id] },
    },
  );
  return (body as Record<string, unknown>[])[0] as Record<string, unknown>;
}

describe('creating a directory', () => {
  it('answers 201 with exactly {"id"}, and the directory starts active, inquiring, with no services or SDK keys', async () => {
    const name = uniqueName('Staff');
    const response = await organization.client.call<Record<string, unknown>>(
      'POST',
      '/organization/v3/directories',
      {
        body: { name },
      },
    );
    expect(response.status).toBe(201);
    expect(Object.keys(response.body as object)).toEqual(['id']);
    const id = (response.body as { id: string }).id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const directory = await getDirectory(id);
    expect(Object.keys(directory).sort()).toEqual(directoryFields);
    expect(directory).toEqual({
      id,
      name,
      active: true,
      premium: false,
      service_ids: [],
      sdk_keys: [],
      android_key: null,
      ios_certificate_fingerprint: null,
      denial_context_inquiry_enabled: true,
      webhook_url: null,
    });
  });

  it('lists the organization’s directories, and only those', async () => {
    const other = await newOrganization(service);
    const mine = await createDirectory(organization);
    const theirs = await createDirectory(other);
    const { body } = await organization.client.call<{ id: string }[]>('GET', '/organization/v3/directories');
    const ids = (body ?? []).map((directory) => directory.id);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(theirs);
  });

  it('refuses a name the organization already uses, in any case or spacing, with ORG-003', async () => {
    const name = uniqueName('Sales');
    await createDirectory(organization, name);
    expect(await refusedWith(createDirectory(organization, name))).toEqual({ status: 400, code: 'ORG-003' });
    expect(await refusedWith(createDirectory(organization, `  ${name.toUpperCase()} `))).toEqual({
      status: 400,
      code: 'ORG-003',
    });
  });

  it('lets another organization use the same name', async () => {
    const name = uniqueName('Shared');
    await createDirectory(organization, name);
    const other = await newOrganization(service);
    await expect(createDirectory(other, name)).resolves.toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets exactly one of many concurrent creates with one name win', async () => {
    const name = uniqueName('Race');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => createDirectory(organization, name)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect(outcome.reason).toMatchObject({ status: 400, errorCode: 'ORG-003' });
    }
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '   ' }],
    ['a name that is not a string', { name: 7 }],
    ['an unknown field', { name: 'x', premium: true }],
  ])('refuses %s with ARG-001', async (_, body) => {
    expect(
      await refusedWith(organization.client.call('POST', '/organization/v3/directories', { body })),
    ).toEqual({
      status: 400,
      code: 'ARG-001',
    });
  });
});

describe('reading directories by id', () => {
  it('answers in the order asked', async () => {
    const first = await createDirectory(organization);
    const second = await createDirectory(organization);
    const { body } = await organization.client.call<{ id: string }[]>(
      'POST',
      '/organization/v3/directories/list',
      {
        body: { directory_ids: [second, first] },
      },
    );
    expect((body ?? []).map((directory) => directory.id)).toEqual([second, first]);
  });

  it.each([
    ['another organization’s directory', async () => createDirectory(await newOrganization(service))],
    ['an unknown directory', async () => randomUUID()],
  ])('refuses %s with 403', async (_, id) => {
    const directoryId = await id();
    expect(await refusedWith(getDirectory(directoryId))).toEqual({ status: 403, code: 'HTTP-403' });
  });
});

describe('updating a directory', () => {
  const account = makeServiceAccount();
  const patch = (body: Record<string, unknown>) =>
    organization.client.call('PATCH', '/organization/v3/directories', { body });

  it('changes only the fields present', async () => {
    const id = await createDirectory(organization);
    expect((await patch({ directory_id: id, active: false })).status).toBe(204);
    await patch({
      directory_id: id,
      android_key: account.json,
      webhook_url: 'https://hooks.example.com/dir',
    });
    await patch({ directory_id: id, denial_context_inquiry_enabled: false });
    expect(await getDirectory(id)).toMatchObject({
      active: false,
      android_key: `service-account:${account.file.client_email}#${account.file.private_key_id?.slice(0, 8)}`,
      webhook_url: 'https://hooks.example.com/dir',
      denial_context_inquiry_enabled: false,
    });
  });

  it('clears android_key, webhook_url and ios_p12 with an explicit null, and leaves the flags on null', async () => {
    const id = await createDirectory(organization);
    await patch({
      directory_id: id,
      android_key: account.json,
      webhook_url: 'https://x.example/h',
      ios_p12: alphaP12,
    });
    await patch({
      directory_id: id,
      android_key: null,
      webhook_url: null,
      ios_p12: null,
      active: null,
      denial_context_inquiry_enabled: null,
    });
    expect(await getDirectory(id)).toMatchObject({
      android_key: null,
      webhook_url: null,
      ios_certificate_fingerprint: null,
      active: true,
      denial_context_inquiry_enabled: true,
    });
  });

  it('surfaces an ios_p12 only as the SHA-256 fingerprint of its certificate, with or without line breaks', async () => {
    const id = await createDirectory(organization);
    await patch({ directory_id: id, ios_p12: alphaP12 });
    expect((await getDirectory(id)).ios_certificate_fingerprint).toBe(alphaFingerprint);
    const wrapped = `${alphaP12.match(/.{1,76}/g)?.join('\n')}\n`;
    await patch({ directory_id: id, ios_p12: null });
    await patch({ directory_id: id, ios_p12: wrapped });
    const directory = await getDirectory(id);
    expect(directory.ios_certificate_fingerprint).toBe(alphaFingerprint);
    expect(JSON.stringify(directory)).not.toContain(alphaP12.slice(0, 40));
  });

  it.each([
    ["OpenSSL 3's default export (PBES2, AES-256)", 'openssl-pbes2-aes256'],
    ["Keychain's layout (RC2-40 certificates, 3DES key)", 'openssl-legacy-rc2-40'],
  ])('surfaces the fingerprint of %s', async (_, name) => {
    const id = await createDirectory(organization);
    await patch({ directory_id: id, ios_p12: p12Fixture(name) });
    expect((await getDirectory(id)).ios_certificate_fingerprint).toBe(
      'B0:5E:F9:4A:B3:7B:AB:AE:7A:30:ED:7F:B3:B1:A3:EF:B1:E2:05:C8:D0:FC:D6:0A:81:3F:CD:FF:E3:7F:9F:0E',
    );
  });

  it.each([
    ['text that is not base64', 'not base64!'],
    ['base64 that is not a PKCS#12', Buffer.from('hello world').toString('base64')],
    ['a PKCS#12 with a password', p12Fixture('openssl-with-password')],
  ])('refuses an ios_p12 of %s with ARG-001', async (_, p12) => {
    const id = await createDirectory(organization);
    const error = await refusal(patch({ directory_id: id, ios_p12: p12 }));
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(String(error.errorDetail)).toMatch(/^ios_p12: /);
  });

  it('refuses an ios_p12 asking for 3 000 000 key-derivation iterations with ARG-001 naming the cap', async () => {
    const id = await createDirectory(organization);
    const error = await refusal(
      patch({ directory_id: id, ios_p12: p12Fixture('openssl-3000000-iterations') }),
    );
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(error.errorDetail).toBe("ios_p12: the MAC's iteration count 3000000 is above 10000");
    expect((await getDirectory(id)).ios_certificate_fingerprint).toBeNull();
  });

  it('refuses an ios_p12 holding more private keys than APNs needs with ARG-001, before decrypting any', async () => {
    const id = await createDirectory(organization);
    const error = await refusal(
      patch({ directory_id: id, ios_p12: p12Fixture('openssl-no-mac-three-keys') }),
    );
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(error.errorDetail).toBe('ios_p12: holds more than 2 private keys');
    expect((await getDirectory(id)).ios_certificate_fingerprint).toBeNull();
  });

  it.each([
    ['a webhook_url that is not absolute', { webhook_url: '/relative' }, /webhook_url/],
    ['a webhook_url of another scheme', { webhook_url: 'ftp://example.com/x' }, /webhook_url/],
    ['an active that is not a boolean', { active: 'yes' }, /active/],
    ['an unknown field', { name: 'renamed' }, /name/],
  ])('refuses %s with ARG-001 naming the field', async (_, fields, detail) => {
    const id = await createDirectory(organization);
    const error = await refusal(patch({ directory_id: id, ...fields }));
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect(String(error.errorDetail)).toMatch(detail);
  });

  it('answers a foreign directory exactly as an unknown one, before it reads any push credential', async () => {
    const foreign = await createDirectory(await newOrganization(service));
    const refused = async (directoryId: string) => {
      const error = await refusal(patch({ directory_id: directoryId, ios_p12: 'not base64!' }));
      return {
        status: error.status,
        code: error.errorCode,
        detail: String(error.errorDetail).replace(directoryId, '<id>'),
      };
    };
    const unknown = await refused(randomUUID());
    expect(unknown).toMatchObject({ status: 403, code: 'HTTP-403' });
    expect(await refused(foreign)).toEqual(unknown);
  });

  it('refuses a directory_id that is not a UUID with ARG-001, and a foreign one with 403', async () => {
    expect(await refusedWith(patch({ directory_id: 'x' }))).toEqual({ status: 400, code: 'ARG-001' });
    const foreign = await createDirectory(await newOrganization(service));
    expect(await refusedWith(patch({ directory_id: foreign, active: false }))).toEqual({
      status: 403,
      code: 'HTTP-403',
    });
  });
});

describe('an android_key that is not a service-account file, as the LaunchKey SDKs send one', () => {
  const patch = (body: Record<string, unknown>) =>
    organization.client.call('PATCH', '/organization/v3/directories', { body });
  const listAll = async () =>
    (await organization.client.call<Record<string, unknown>[]>('GET', '/organization/v3/directories')).body ??
    [];
  const withAndroidKey = async (androidKey: string) => {
    const id = await createDirectory(organization);
    expect((await patch({ directory_id: id, android_key: androidKey })).status).toBe(204);
    return id;
  };

  it('creates a directory with the Android key "Hello Android" and reads it back', async () => {
    const id = await withAndroidKey('Hello Android');
    expect(await getDirectory(id)).toMatchObject({ id, android_key: 'Hello Android' });
  });

  it('updates the Android key to "A new Android Key"', async () => {
    const id = await withAndroidKey('Hello Android');
    expect((await patch({ directory_id: id, android_key: 'A new Android Key' })).status).toBe(204);
    expect((await getDirectory(id)).android_key).toBe('A new Android Key');
  });

  it('gets the directory with its Android key exactly as given', async () => {
    const given = '  Clé Android ✓\n\t"quoted" \u{1F511}\n';
    const id = await withAndroidKey(given);
    expect((await getDirectory(id)).android_key).toBe(given);
  });

  it('lists the directories with each Android key as given, and a service account as which one it is', async () => {
    const plain = await withAndroidKey('Hello Android');
    const account = makeServiceAccount();
    const fileDirectory = await withAndroidKey(account.json);
    const keys = new Map((await listAll()).map((each) => [each.id, each.android_key]));
    expect(keys.get(plain)).toBe('Hello Android');
    expect(keys.get(fileDirectory)).toBe(
      `service-account:${account.file.client_email}#${account.file.private_key_id?.slice(0, 8)}`,
    );
  });

  it('keeps it sealed at rest', async () => {
    const id = await withAndroidKey('Hello Android sealed');
    const { getDirectory: storedDirectory } = await import('#shared/store/directories');
    const stored = JSON.stringify(await storedDirectory(organization.id, id));
    expect(stored).not.toContain('Hello Android');
    expect(stored).toMatch(/"sealed":"[A-Za-z0-9_-]{40,}"/);
  });

  it('replaces it with a service-account file and back, and clears it with null', async () => {
    const account = makeServiceAccount();
    const id = await withAndroidKey('Hello Android');
    await patch({ directory_id: id, android_key: account.json });
    expect((await getDirectory(id)).android_key).toMatch(/^service-account:/);
    await patch({ directory_id: id, android_key: 'A new Android Key' });
    expect((await getDirectory(id)).android_key).toBe('A new Android Key');
    await patch({ directory_id: id, android_key: null });
    expect((await getDirectory(id)).android_key).toBeNull();
  });

  it('takes 8 192 characters, and refuses 8 193 or none with ARG-001 naming android_key', async () => {
    const longest = 'é'.repeat(8192);
    const id = await withAndroidKey(longest);
    expect((await getDirectory(id)).android_key).toBe(longest);
    for (const refused of [`${longest}x`, '']) {
      const error = await refusal(patch({ directory_id: id, android_key: refused }));
      expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
      expect(String(error.errorDetail)).toMatch(/^android_key: /);
    }
    expect((await getDirectory(id)).android_key).toBe(longest);
  });
});

describe('in the API-JWT dialect', () => {
  it('creates and reads a directory the same way', async () => {
    const apiOrganization = await newOrganization(service, { dialect: 'api' });
    const id = await createDirectory(apiOrganization);
    expect((await getDirectory(id, apiOrganization)).id).toBe(id);
  });
});
