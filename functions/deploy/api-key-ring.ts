import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { secretKeyCustody } from '#shared/api-keys/key-ring-storage';
import { logger } from '#shared/log';
import { ensureKeyCustody } from '#shared/use-cases/api-keys';

/**
 * The custom resource that gives a deployment its keys: on create and on every update each missing part is made (a
 * ring from the single secret of older deployments hands over its hash key and VAPID keys unchanged) and the ring's
 * public keys are published to the table. Deleting the resource deletes nothing: the secrets are retained with the
 * table unless the stack was deployed with protectData=false. The private keys never leave their secrets; only the
 * current kid is returned.
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
  const { HashKeySecretId: hashKey, VapidKeysSecretId: vapidKeys } = event.ResourceProperties as Record<
    string,
    unknown
  >;
  if (typeof hashKey !== 'string' || typeof vapidKeys !== 'string')
    throw new Error('HashKeySecretId and VapidKeysSecretId are required');
  const custody = await secretKeyCustody({ apiKeys: secretId, hashKey, vapidKeys });
  const { created, current } = await ensureKeyCustody(custody, bits as ApiKeySize);
  logger.info('API keys ready', { created, currentKeyId: current });
  return { PhysicalResourceId: physicalResourceId, Data: { CurrentKeyId: current } };
}
