import { ResourceNotFoundException as TableNotFound, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeKeyCommand, NotFoundException as KeyNotFound } from '@aws-sdk/client-kms';
import {
  DescribeSecretCommand,
  ResourceNotFoundException as SecretNotFound,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import {
  checkExistingKey,
  checkExistingSecret,
  checkExistingTable,
} from '#shared/preflight/existing-resources';
import { account, awsError, noAbort, preflightAccount, region } from '#test/support/preflight-account';

const notFound = { message: 'not found', $metadata: {} };

describe('the existing table check', () => {
  const table = { label: 'table', id: 'MfaAuthorizationService-Table-1A2B', region };
  const check = (aws = preflightAccount()) => checkExistingTable(aws.clients.dynamodb, table, noAbort);

  it('is ok with an active table keyed as this service keys its tables', async () => {
    expect(await check()).toEqual({
      check: 'existing table',
      status: 'ok',
      found: `${table.id} in ${region}, ACTIVE`,
    });
  });

  it('says so of a table that is not in the region, or not of this service, or not yet usable', async () => {
    const answering = (answer: Error | { TableStatus: string; keys: string[] }) => {
      const aws = preflightAccount();
      const describe = aws.dynamodb.on(DescribeTableCommand);
      if (answer instanceof Error) describe.rejects(answer);
      else {
        const KeySchema = answer.keys.map((AttributeName, index) => ({
          AttributeName,
          KeyType: index ? ('RANGE' as const) : ('HASH' as const),
        }));
        describe.resolves({ Table: { TableStatus: answer.TableStatus as 'ACTIVE', KeySchema } });
      }
      return check(aws);
    };
    expect(await answering(new TableNotFound(notFound))).toMatchObject({
      status: 'fix',
      found: `no table ${table.id} in ${region}`,
    });
    expect(await answering({ TableStatus: 'ACTIVE', keys: ['id'] })).toMatchObject({
      status: 'fix',
      found: `${table.id} has the keys id (HASH): not a table of this service`,
    });
    expect(await answering({ TableStatus: 'DELETING', keys: ['pk', 'sk'] })).toMatchObject({
      status: 'fix',
      found: `${table.id} is DELETING`,
    });
  });

  it('cannot check when DescribeTable is denied', async () => {
    const aws = preflightAccount();
    aws.dynamodb.on(DescribeTableCommand).rejects(awsError('AccessDeniedException'));
    expect(await check(aws)).toMatchObject({
      status: 'cannot-check',
      found: `dynamodb:DescribeTable on ${table.id} was denied`,
    });
  });
});

describe('the existing secret check', () => {
  const arn = `arn:aws:secretsmanager:${region}:${account}:secret:ApiKeyRing-AbCdEf`;
  const check = (aws = preflightAccount(), id = arn) =>
    checkExistingSecret(aws.clients.secretsManager, { label: 'API key secret', id, region }, noAbort);

  it('is ok with a secret of the region that is not being deleted', async () => {
    expect(await check()).toEqual({ check: 'existing API key secret', status: 'ok', found: `${arn} exists` });
  });

  it('says to restore a secret scheduled for deletion', async () => {
    const aws = preflightAccount();
    aws.secretsManager.on(DescribeSecretCommand).resolves({ ARN: arn, DeletedDate: new Date() });
    expect(await check(aws)).toMatchObject({
      status: 'fix',
      found: `${arn} is scheduled for deletion`,
      action: `aws secretsmanager restore-secret --secret-id ${arn} --region ${region}`,
    });
  });

  it("says so of a secret that is missing, or another region's, without asking for the latter", async () => {
    const aws = preflightAccount();
    aws.secretsManager.on(DescribeSecretCommand).rejects(new SecretNotFound(notFound));
    expect((await check(aws)).found).toBe(`no secret ${arn}`);
    const elsewhere = arn.replace(region, 'us-west-2');
    expect(await check(aws, elsewhere)).toMatchObject({
      status: 'fix',
      found: `${elsewhere} is in us-west-2, not in ${region}`,
    });
    expect(aws.secretsManager.commandCalls(DescribeSecretCommand)).toHaveLength(1);
  });

  it('cannot check when DescribeSecret is denied', async () => {
    const aws = preflightAccount();
    aws.secretsManager.on(DescribeSecretCommand).rejects(awsError('AccessDeniedException'));
    expect((await check(aws)).status).toBe('cannot-check');
  });
});

describe('the existing key check', () => {
  const arn = `arn:aws:kms:${region}:${account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
  const check = (aws = preflightAccount()) =>
    checkExistingKey(aws.clients.kms, { label: 'KMS key', id: arn, region }, noAbort);
  const inState = (KeyState: 'Disabled' | 'PendingDeletion' | 'PendingImport') => {
    const aws = preflightAccount();
    aws.kms.on(DescribeKeyCommand).resolves({ KeyMetadata: { KeyId: arn, KeyState } });
    return check(aws);
  };

  it('is ok with an enabled key', async () => {
    expect(await check()).toEqual({ check: 'existing KMS key', status: 'ok', found: `${arn} is enabled` });
  });

  it('says how to bring back a key that is disabled or scheduled for deletion', async () => {
    expect(await inState('Disabled')).toMatchObject({
      status: 'fix',
      action: `aws kms enable-key --key-id ${arn} --region ${region}`,
    });
    expect((await inState('PendingDeletion')).action).toBe(
      `aws kms cancel-key-deletion --key-id ${arn} --region ${region}, then aws kms enable-key --key-id ${arn} --region ${region}`,
    );
    expect(await inState('PendingImport')).toMatchObject({ status: 'fix', found: `${arn} is PendingImport` });
  });

  it('says so of a missing key, and cannot check when DescribeKey is denied', async () => {
    const missing = preflightAccount();
    missing.kms.on(DescribeKeyCommand).rejects(new KeyNotFound(notFound));
    expect(await check(missing)).toMatchObject({ status: 'fix', found: `no key ${arn}` });
    const aws = preflightAccount();
    aws.kms.on(DescribeKeyCommand).rejects(awsError('AccessDeniedException'));
    expect(await check(aws)).toMatchObject({
      status: 'cannot-check',
      found: `kms:DescribeKey on ${arn} was denied`,
    });
  });
});
