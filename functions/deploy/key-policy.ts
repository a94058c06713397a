import { KMSClient, PutKeyPolicyCommand } from '@aws-sdk/client-kms';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { logger } from '#shared/log';

let client: KMSClient | undefined;

/**
 * The custom resource that puts the service's key policy on an existing KMS key the stack adopted (-c existingKeyArn,
 * infra/existing-key-policy.ts): the policy CloudFormation would give a key of the stack's own, naming this
 * deployment's roles, so that a stack deployed again around a retained key, or in a second region around its own key
 * there, can use it. Deleting the resource leaves the key and its policy as they are: both are the operator's.
 */
export async function handler(
  event: CloudFormationCustomResourceEvent,
): Promise<{ PhysicalResourceId: string }> {
  const { KeyId: keyId, Policy: policy } = event.ResourceProperties as Record<string, unknown>;
  if (typeof keyId !== 'string' || keyId === '') throw new Error('KeyId must name the key');
  const physicalResourceId = `key-policy:${keyId}`;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
  if (typeof policy !== 'object' || policy === null || !('Statement' in policy)) {
    throw new Error('Policy must be a key policy document');
  }
  client ??= new KMSClient({});
  await client.send(
    new PutKeyPolicyCommand({ KeyId: keyId, PolicyName: 'default', Policy: JSON.stringify(policy) }),
  );
  logger.info('Key policy put', { keyId });
  return { PhysicalResourceId: physicalResourceId };
}
