import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { logger } from '#shared/log';

const physicalResourceId = 'origin-secrets';
let client: SecretsManagerClient | undefined;

/**
 * The custom resource that hands the API's functions the origin secrets they accept (infra/origin-secrets.ts): on
 * create and update it reads the secrets `SecretIds` names, in order, and answers their values space-separated as
 * `AcceptedSecrets`, NoEcho so that CloudFormation never shows them; the functions' environment takes it by GetAtt.
 * Deleting it deletes nothing: the secrets are the stack's own resources.
 */
export async function handler(
  event: CloudFormationCustomResourceEvent,
): Promise<{ PhysicalResourceId: string; Data?: Record<string, string>; NoEcho?: boolean }> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
  const ids: unknown = event.ResourceProperties.SecretIds;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id !== '')) {
    throw new Error('SecretIds must name the origin secrets');
  }
  client ??= new SecretsManagerClient({});
  const values = await Promise.all(
    ids.map(async (id: string) => {
      const { SecretString } = await (client as SecretsManagerClient).send(
        new GetSecretValueCommand({ SecretId: id }),
      );
      if (!SecretString || /\s/.test(SecretString))
        throw new Error(`The origin secret ${id} holds no usable value`);
      return SecretString;
    }),
  );
  logger.info('Origin secrets read', { secrets: ids.length });
  return {
    PhysicalResourceId: physicalResourceId,
    Data: { AcceptedSecrets: values.join(' ') },
    NoEcho: true,
  };
}
