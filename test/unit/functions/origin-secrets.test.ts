import { describe, expect, it, vi } from 'vitest';

const secrets = vi.hoisted(() => new Map<string, string>());
vi.mock('@aws-sdk/client-secrets-manager', () => ({
  GetSecretValueCommand: class {
    constructor(readonly input: { SecretId: string }) {}
  },
  SecretsManagerClient: class {
    send(command: { input: { SecretId: string } }) {
      const value = secrets.get(command.input.SecretId);
      return value === undefined
        ? Promise.reject(
            new Error(`Secrets Manager can't find the specified secret ${command.input.SecretId}`),
          )
        : Promise.resolve({ SecretString: value });
    }
  },
}));
const { handler } = await import('#functions/deploy/origin-secrets');

const event = (requestType: 'Create' | 'Update' | 'Delete', secretIds: unknown) =>
  ({
    RequestType: requestType,
    PhysicalResourceId: 'origin-secrets',
    ResourceProperties: { ServiceToken: 'token', SecretIds: secretIds },
  }) as unknown as Parameters<typeof handler>[0];

describe('the origin secrets custom resource', () => {
  it('answers the values the functions accept, in the order named, space-separated and hidden from CloudFormation', async () => {
    secrets.set('arn:sent', 'sentValue48').set('arn:next', 'nextValue48');
    for (const requestType of ['Create', 'Update'] as const) {
      await expect(handler(event(requestType, ['arn:sent', 'arn:next']))).resolves.toEqual({
        PhysicalResourceId: 'origin-secrets',
        Data: { AcceptedSecrets: 'sentValue48 nextValue48' },
        NoEcho: true,
      });
    }
  });

  it('reads nothing when the stack deletes it', async () => {
    await expect(handler(event('Delete', ['arn:gone']))).resolves.toEqual({
      PhysicalResourceId: 'origin-secrets',
    });
  });

  it('fails the deployment rather than hand the functions a value they would compare wrongly', async () => {
    await expect(handler(event('Create', []))).rejects.toThrow(/SecretIds must name the origin secrets/);
    await expect(handler(event('Create', ['arn:missing']))).rejects.toThrow(/can't find/);
    secrets.set('arn:spaced', 'two words');
    await expect(handler(event('Update', ['arn:spaced']))).rejects.toThrow(/holds no usable value/);
  });
});
