import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { DescribeSecretCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { partitionKeyName, sortKeyName } from '#shared/store/table-definition';
import { regionOf } from '#shared/preflight/arn';
import { errorName, unlessDenied } from '#shared/preflight/aws-errors';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';

/** A resource the stack is to adopt rather than create (`-c existingTableName` and the like), in the stack's region. */
export interface ExistingResource {
  /** What it is, for the check's name: `table`, `API key secret`. */
  readonly label: string;
  /** The table's name, or the secret's or key's ARN. */
  readonly id: string;
  readonly region: string;
}

const notFound = new Set(['ResourceNotFoundException', 'NotFoundException']);

/** The table exists, can be written, and has this service's keys. */
export async function checkExistingTable(
  dynamodb: DynamoDBClient,
  table: ExistingResource,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = `existing ${table.label}`;
  try {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: table.id }), {
      abortSignal: signal,
    });
    const keys = (Table?.KeySchema ?? []).map((key) => `${key.AttributeName} (${key.KeyType})`).join(', ');
    if (keys !== `${partitionKeyName} (HASH), ${sortKeyName} (RANGE)`)
      return fix(
        check,
        `${table.id} has the keys ${keys}: not a table of this service`,
        'name a table this stack made',
      );
    if (Table?.TableStatus !== 'ACTIVE' && Table?.TableStatus !== 'UPDATING')
      return fix(
        check,
        `${table.id} is ${Table?.TableStatus}`,
        'wait until it is ACTIVE, then run preflight again',
      );
    return ok(check, `${table.id} in ${table.region}, ${Table.TableStatus}`);
  } catch (error) {
    if (notFound.has(errorName(error)))
      return fix(
        check,
        `no table ${table.id} in ${table.region}`,
        `check the name (aws dynamodb list-tables --region ${table.region}), or add a replica there first`,
      );
    return unlessDenied(check, 'dynamodb:DescribeTable', table.id, error);
  }
}

/** The secret exists in the stack's region and is not scheduled for deletion. */
export async function checkExistingSecret(
  secretsManager: SecretsManagerClient,
  secret: ExistingResource,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = `existing ${secret.label}`;
  const elsewhere = otherRegion(
    check,
    secret,
    `its replica in ${secret.region} (aws secretsmanager replicate-secret-to-regions)`,
  );
  if (elsewhere) return elsewhere;
  try {
    const { DeletedDate } = await secretsManager.send(new DescribeSecretCommand({ SecretId: secret.id }), {
      abortSignal: signal,
    });
    if (DeletedDate)
      return fix(
        check,
        `${secret.id} is scheduled for deletion`,
        `aws secretsmanager restore-secret --secret-id ${secret.id} --region ${secret.region}`,
      );
    return ok(check, `${secret.id} exists`);
  } catch (error) {
    if (notFound.has(errorName(error)))
      return fix(
        check,
        `no secret ${secret.id}`,
        'check the ARN: the stack output of the deployment that made it',
      );
    return unlessDenied(check, 'secretsmanager:DescribeSecret', secret.id, error);
  }
}

/** The key exists in the stack's region and is enabled. */
export async function checkExistingKey(
  kms: KMSClient,
  key: ExistingResource,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = `existing ${key.label}`;
  const elsewhere = otherRegion(check, key, `a replica of it in ${key.region} (a multi-Region key)`);
  if (elsewhere) return elsewhere;
  const inRegion = `--key-id ${key.id} --region ${key.region}`;
  try {
    const { KeyMetadata } = await kms.send(new DescribeKeyCommand({ KeyId: key.id }), {
      abortSignal: signal,
    });
    const state = KeyMetadata?.KeyState;
    if (state === 'Enabled') return ok(check, `${key.id} is enabled`);
    if (state === 'PendingDeletion')
      return fix(
        check,
        `${key.id} is scheduled for deletion`,
        `aws kms cancel-key-deletion ${inRegion}, then aws kms enable-key ${inRegion}`,
      );
    if (state === 'Disabled') return fix(check, `${key.id} is disabled`, `aws kms enable-key ${inRegion}`);
    return fix(check, `${key.id} is ${state}`, 'name a key that is enabled');
  } catch (error) {
    if (notFound.has(errorName(error)))
      return fix(check, `no key ${key.id}`, 'check the ARN: the key of the secrets you adopt');
    return unlessDenied(check, 'kms:DescribeKey', key.id, error);
  }
}

/** A secret or key of another region: the stack can use only its own region's. */
function otherRegion(check: string, resource: ExistingResource, instead: string): CheckResult | undefined {
  const region = regionOf(resource.id);
  if (region === resource.region) return undefined;
  return fix(
    check,
    `${resource.id} is ${region ? `in ${region}` : 'not an ARN'}, not in ${resource.region}`,
    `name ${instead}`,
  );
}
