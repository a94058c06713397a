import { describe, expect, it, vi } from 'vitest';
import { generateHashKey } from '#shared/api-keys/hash-key';
import { generateApiKey, withApiKey } from '#shared/api-keys/key-ring';
import { generateVapidKeys } from '#shared/api-keys/vapid-keys';
import { type MemoryKeyCustody, memoryKeyCustody } from '#test/support/memory-key-custody';

// The store names its table when it loads; nothing here reaches it.
process.env.TABLE_NAME ??= 'unit';
process.env.AWS_REGION ??= 'us-east-1';
const secrets = vi.hoisted(() => ({
  custody: undefined as MemoryKeyCustody | undefined,
  ids: new Map<string, unknown>(),
}));
vi.mock('#shared/api-keys/key-ring-storage', () => ({
  secretKeyCustody: async (ids: Record<string, string>) => {
    for (const [part, id] of Object.entries(ids)) secrets.ids.set(part, id);
    return secrets.custody;
  },
}));
vi.mock('#shared/store/api-keys', async () =>
  (await import('#test/support/memory-key-custody')).memoryApiKeyStore(),
);
const { handler } = await import('#functions/deploy/api-key-ring');

const properties = {
  ServiceToken: 'token',
  SecretId: 'arn:ring',
  HashKeySecretId: 'arn:hash',
  VapidKeysSecretId: 'arn:vapid',
};
const event = (
  requestType: 'Create' | 'Update' | 'Delete',
  keyBits: string,
  more: Record<string, string> = properties,
) =>
  ({
    RequestType: requestType,
    PhysicalResourceId: 'api-key-ring:arn:ring',
    ResourceProperties: { ...more, KeyBits: keyBits },
  }) as unknown as Parameters<typeof handler>[0];

describe('the API key ring custom resource', () => {
  it('leaves the secrets alone when the stack deletes it (they are retained, or go with the stack)', async () => {
    await expect(handler(event('Delete', '2048'))).resolves.toEqual({
      PhysicalResourceId: 'api-key-ring:arn:ring',
    });
  });

  it('refuses a key size the service does not support, or no place for the hash key, before touching anything', async () => {
    await expect(handler(event('Create', '1024'))).rejects.toThrow(/KeyBits must be one of 2048, 3072, 4096/);
    await expect(
      handler(event('Update', '2048', { ServiceToken: 'token', SecretId: 'arn:ring' })),
    ).rejects.toThrow(/HashKeySecretId and VapidKeysSecretId are required/);
  });

  it('splits the single secret of an older deployment on its next update, keeping the hash key and VAPID keys', async () => {
    const key = generateApiKey(2048);
    const legacy = { ...withApiKey(undefined, key, true), ...generateHashKey(), vapid: generateVapidKeys() };
    secrets.custody = memoryKeyCustody({ apiKeys: legacy });
    await expect(handler(event('Update', '2048'))).resolves.toEqual({
      PhysicalResourceId: 'api-key-ring:arn:ring',
      Data: { CurrentKeyId: key.kid },
    });
    expect(Object.fromEntries(secrets.ids)).toEqual({
      apiKeys: 'arn:ring',
      hashKey: 'arn:hash',
      vapidKeys: 'arn:vapid',
    });
    expect(await secrets.custody.hashKey.read()).toEqual({ hashKey: legacy.hashKey });
    expect(await secrets.custody.vapidKeys.read()).toEqual(legacy.vapid);
  });
});
