import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { secretKeyRingStorage } from '#shared/api-keys/key-ring-storage';
import { logger } from '#shared/log';
import { ensureApiKeyRing } from '#shared/use-cases/api-keys';

/**
 * The custom resource that gives a deployment its API key ring: on create and on every update the ring in the secret
 * is made if it is missing and its public keys are published to the table. Deleting the resource deletes nothing:
 * the secret goes with the stack. The private keys never leave the secret; only the current kid is returned.
 */
export async function handler(
  event: CloudFormationCustomResourceEvent,
): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }> {
  const secretId = String(event.ResourceProperties.SecretId);
  const physicalResourceId = `api-key-ring:${secretId}`;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
  const bits = Number(event.ResourceProperties.KeyBits);
  if (!apiKeySizes.includes(bits as ApiKeySize)) {
    throw new Error(
      `KeyBits must be one of ${apiKeySizes.join(', ')}, not ${String(event.ResourceProperties.KeyBits)}`,
    );
  }
  const { created, current } = await ensureApiKeyRing(
    await secretKeyRingStorage(secretId),
    bits as ApiKeySize,
  );
  logger.info('API key ring ready', { created, currentKeyId: current });
  return { PhysicalResourceId: physicalResourceId, Data: { CurrentKeyId: current } };
}
