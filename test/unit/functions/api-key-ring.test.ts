import { describe, expect, it } from 'vitest';

// The store names its table when it loads; nothing here reaches it.
process.env.TABLE_NAME ??= 'unit';
process.env.AWS_REGION ??= 'us-east-1';
const { handler } = await import('#functions/deploy/api-key-ring');

const event = (requestType: 'Create' | 'Update' | 'Delete', keyBits: string) =>
  ({
    RequestType: requestType,
    PhysicalResourceId: 'api-key-ring:arn:secret',
    ResourceProperties: { ServiceToken: 'token', SecretId: 'arn:secret', KeyBits: keyBits },
  }) as unknown as Parameters<typeof handler>[0];

describe('the API key ring custom resource', () => {
  it('leaves the secret alone when the stack deletes it (the secret goes with the stack)', async () => {
    await expect(handler(event('Delete', '2048'))).resolves.toEqual({
      PhysicalResourceId: 'api-key-ring:arn:secret',
    });
  });

  it('refuses a key size the service does not support, before touching anything', async () => {
    await expect(handler(event('Create', '1024'))).rejects.toThrow(/KeyBits must be one of 2048, 3072, 4096/);
  });
});
