import { describe, expect, it, vi } from 'vitest';

const sent = vi.hoisted(() => [] as { KeyId: string; PolicyName: string; Policy: string }[]);
vi.mock('@aws-sdk/client-kms', () => ({
  PutKeyPolicyCommand: class {
    constructor(readonly input: { KeyId: string; PolicyName: string; Policy: string }) {}
  },
  KMSClient: class {
    send(command: { input: { KeyId: string; PolicyName: string; Policy: string } }) {
      sent.push(command.input);
      return Promise.resolve({});
    }
  },
}));
const { handler } = await import('#functions/deploy/key-policy');

const keyId = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const policy = {
  Version: '2012-10-17',
  Statement: [{ Sid: 'RolesReadTheirSecrets', Effect: 'Allow', Action: 'kms:Decrypt', Resource: '*' }],
};
const event = (requestType: 'Create' | 'Update' | 'Delete', properties: Record<string, unknown>) =>
  ({
    RequestType: requestType,
    PhysicalResourceId: `key-policy:${keyId}`,
    ResourceProperties: { ServiceToken: 'token', ...properties },
  }) as unknown as Parameters<typeof handler>[0];

describe('the key policy custom resource', () => {
  it('puts the policy it is given on the existing key, as its default policy, on create and update', async () => {
    for (const requestType of ['Create', 'Update'] as const) {
      await expect(handler(event(requestType, { KeyId: keyId, Policy: policy }))).resolves.toEqual({
        PhysicalResourceId: `key-policy:${keyId}`,
      });
    }
    expect(sent).toEqual([
      { KeyId: keyId, PolicyName: 'default', Policy: JSON.stringify(policy) },
      { KeyId: keyId, PolicyName: 'default', Policy: JSON.stringify(policy) },
    ]);
  });

  it('leaves the key and its policy alone when the stack deletes it: both are the operator’s', async () => {
    sent.length = 0;
    await expect(handler(event('Delete', { KeyId: keyId, Policy: policy }))).resolves.toEqual({
      PhysicalResourceId: `key-policy:${keyId}`,
    });
    expect(sent).toEqual([]);
  });

  it('refuses to put anything but a policy document on a named key', async () => {
    await expect(handler(event('Create', { Policy: policy }))).rejects.toThrow(/KeyId must name the key/);
    await expect(handler(event('Create', { KeyId: keyId, Policy: 'allow all' }))).rejects.toThrow(
      /Policy must be a key policy document/,
    );
    expect(sent).toEqual([]);
  });
});
