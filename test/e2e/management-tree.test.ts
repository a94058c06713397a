import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { rsaKeyPair } from '#test/support/keys';
import { admin, type ServiceProcess, startServiceProcess } from '#test/support/service-process';

let dataDir: string;
let running: ServiceProcess;
let organization: ApiClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-tree-'));
  running = await startServiceProcess(['--port', '0', '--data-dir', dataDir]);
  const created = (await admin([
    'org',
    'create',
    '--name',
    'Tree Co',
    '--data-dir',
    dataDir,
    '--out',
    join(dataDir, 'tree.pem'),
  ])) as {
    issuer: string;
    private_key: string;
  };
  organization = new ApiClient({
    baseUrl: running.baseUrl,
    issuer: created.issuer,
    privateKeyPem: await readFile(created.private_key, 'utf8'),
  });
});
afterAll(async () => {
  await running?.stop('SIGINT');
  await rm(dataDir, { recursive: true, force: true });
});

const body = <T>(response: { body: T | undefined }) => response.body as T;

describe('an organization made by the admin CLI', () => {
  it('builds a whole tree through the TypeScript client and reads it back in the documented shapes', async () => {
    const directoryId = body(
      await organization.call<{ id: string }>('POST', '/organization/v3/directories', {
        body: { name: 'Customers' },
      }),
    ).id;
    const sdkKey = body(
      await organization.call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', {
        body: { directory_id: directoryId },
      }),
    ).sdk_key;
    const directoryKey = rsaKeyPair();
    await organization.call('POST', '/organization/v3/directory/keys', {
      body: { directory_id: directoryId, public_key: directoryKey.publicPem, key_type: 0 },
    });
    const directory = new ApiClient({
      baseUrl: running.baseUrl,
      issuer: `dir:${directoryId}`,
      privateKeyPem: directoryKey.privatePem,
      dialect: 'api',
      signatureAlgorithm: 'RS256',
      encryptionAlgorithm: 'RSA-OAEP-256',
    });

    const directoryServiceId = body(
      await directory.call<{ id: string }>('POST', '/directory/v3/services', {
        body: { name: 'Customer Portal', callback_url: 'https://portal.example.com/hook' },
      }),
    ).id;
    const organizationServiceId = body(
      await organization.call<{ id: string }>('POST', '/organization/v3/services', {
        body: { name: 'Back Office' },
      }),
    ).id;
    const serviceKey = rsaKeyPair();
    const serviceKeyId = body(
      await directory.call<{ key_id: string }>('POST', '/directory/v3/service/keys', {
        body: { service_id: directoryServiceId, public_key: serviceKey.publicPem, key_type: 1 },
      }),
    ).key_id;
    await directory.call('PUT', '/directory/v3/service/policy', {
      body: {
        service_id: directoryServiceId,
        policy: { type: 'FACTORS', factors: ['KNOWLEDGE', 'INHERENCE'] },
      },
    });

    expect(body(await organization.call('GET', '/organization/v3/directories'))).toEqual([
      {
        id: directoryId,
        name: 'Customers',
        active: true,
        premium: false,
        service_ids: [directoryServiceId],
        sdk_keys: [sdkKey],
        android_key: null,
        ios_certificate_fingerprint: null,
        denial_context_inquiry_enabled: true,
        webhook_url: null,
      },
    ]);
    expect(body(await directory.call('GET', '/directory/v3/services'))).toEqual([
      {
        id: directoryServiceId,
        name: 'Customer Portal',
        description: null,
        icon: `${running.baseUrl}/public/v3/icons/service.svg`,
        callback_url: 'https://portal.example.com/hook',
        active: true,
      },
    ]);
    expect(body(await organization.call('GET', '/organization/v3/services'))).toEqual([
      {
        id: organizationServiceId,
        name: 'Back Office',
        description: null,
        icon: `${running.baseUrl}/public/v3/icons/service.svg`,
        callback_url: null,
        active: true,
      },
    ]);
    expect(
      body(
        await organization.call('POST', '/organization/v3/directory/sdk-keys/list', {
          body: { directory_id: directoryId },
        }),
      ),
    ).toEqual([sdkKey]);
    const keys = body(
      await directory.call<Record<string, unknown>[]>('POST', '/directory/v3/service/keys/list', {
        body: { service_id: directoryServiceId },
      }),
    );
    expect(keys).toEqual([
      {
        id: serviceKeyId,
        public_key: serviceKey.publicPem,
        date_created: expect.stringMatching(/Z$/),
        date_expires: null,
        active: true,
        key_type: 1,
      },
    ]);
    const policy = body(
      await directory.call<Record<string, unknown>>('POST', '/directory/v3/service/policy/item', {
        body: { service_id: directoryServiceId },
      }),
    );
    expect(policy).toMatchObject({ type: 'FACTORS', factors: ['INHERENCE', 'KNOWLEDGE'] });

    // And misuse gets its documented error.
    const misuse = await organization
      .call('POST', '/organization/v3/directories', { body: { name: 'customers' } })
      .catch((error: unknown) => error);
    expect(misuse).toBeInstanceOf(ApiRequestError);
    expect(misuse).toMatchObject({ status: 400, errorCode: 'ORG-003' });
  });
});
