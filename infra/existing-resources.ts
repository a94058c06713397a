import { type Stack, Token } from 'aws-cdk-lib';
import { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { MfaAuthorizationServiceProps } from '#infra/mfa-authorization-service';
import { type ExistingResources, existingResourceOptions } from '#shared/existing-resources';

type AdoptedProps = Pick<
  MfaAuthorizationServiceProps,
  'table' | 'auditTable' | 'apiKeySecret' | 'hashKeySecret' | 'vapidKeysSecret' | 'secretsKey'
>;

/**
 * The service's props that adopt `existing`, imported into `stack`. An ARN of the wrong kind, or of another region or
 * account than the stack's, is refused here rather than by a failed deployment.
 */
export function adoptExisting(stack: Stack, existing: ExistingResources): AdoptedProps {
  /** The ARN, once it is of its kind (`kind` captures its region and account) and in the stack's region and account. */
  const checked = (option: string, arn: string, kind: { readonly name: string; readonly arn: RegExp }) => {
    const [, region, account] = kind.arn.exec(arn) ?? [];
    if (!region || !account) throw new Error(`-c ${option} must be the ARN of ${kind.name}, not ${arn}`);
    for (const [what, theirs, ours] of [
      ['region', region, stack.region],
      ['account', account, stack.account],
    ] as const) {
      if (!Token.isUnresolved(ours) && theirs !== ours) {
        throw new Error(`-c ${option} is in ${what} ${theirs}, the stack in ${ours}: ${arn}`);
      }
    }
    return arn;
  };
  const secretArn = {
    name: 'a secret, with the six characters Secrets Manager adds to its name',
    arn: /^arn:[\w-]+:secretsmanager:([a-z0-9-]+):(\d{12}):secret:.+-[A-Za-z0-9]{6}$/,
  };
  const keyArn = { name: 'a KMS key', arn: /^arn:[\w-]+:kms:([a-z0-9-]+):(\d{12}):key\/[\w-]+$/ };
  const secret = (field: 'apiKeySecretArn' | 'hashKeySecretArn' | 'vapidKeysSecretArn', id: string) => {
    const arn = existing[field];
    return arn
      ? Secret.fromSecretCompleteArn(stack, id, checked(existingResourceOptions[field], arn, secretArn))
      : undefined;
  };
  const apiKeySecret = secret('apiKeySecretArn', 'ExistingApiKeySecret');
  const hashKeySecret = secret('hashKeySecretArn', 'ExistingHashKeySecret');
  const vapidKeysSecret = secret('vapidKeysSecretArn', 'ExistingVapidKeysSecret');
  return {
    ...(existing.tableName
      ? { table: TableV2.fromTableName(stack, 'ExistingTable', existing.tableName) }
      : {}),
    ...(existing.auditTableName
      ? { auditTable: TableV2.fromTableName(stack, 'ExistingAuditTable', existing.auditTableName) }
      : {}),
    ...(apiKeySecret ? { apiKeySecret } : {}),
    ...(hashKeySecret ? { hashKeySecret } : {}),
    ...(vapidKeysSecret ? { vapidKeysSecret } : {}),
    ...(existing.keyArn
      ? {
          secretsKey: Key.fromKeyArn(
            stack,
            'ExistingKey',
            checked(existingResourceOptions.keyArn, existing.keyArn, keyArn),
          ),
        }
      : {}),
  };
}
