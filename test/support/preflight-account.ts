import { ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetRoleCommand, IAMClient, NoSuchEntityException } from '@aws-sdk/client-iam';
import { DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { CliFailure } from '#shared/cli/common';
import { preflightCommand } from '#shared/cli/preflight-command';
import type { PreflightValues } from '#shared/cli/preflight-options';
import type { PreflightClients } from '#shared/preflight/preflight';

/**
 * An AWS account, as the preflight's clients see it through the SDK's client mock: ready for a first deploy until a
 * test says otherwise. Nothing leaves the process.
 */

export const account = '123456789012';
export const region = 'eu-west-1';
/** An operator signed in through IAM Identity Center: STS names the session, IAM the role with its path. */
export const ssoRoleName = 'AWSReservedSSO_AdministratorAccess_0123456789abcdef';
export const ssoSessionArn = `arn:aws:sts::${account}:assumed-role/${ssoRoleName}/alice`;
export const ssoRoleArn = `arn:aws:iam::${account}:role/aws-reserved/sso.amazonaws.com/${region}/${ssoRoleName}`;

export function bootstrapRoleName(inRegion: string): string {
  return `cdk-hnb659fds-cfn-exec-role-${account}-${inRegion}`;
}

/** An error as the SDK throws an unmodelled one: named after AWS's code. */
export function awsError(name: string, message = name): Error {
  return Object.assign(new Error(message), { name, $metadata: {} });
}

/** A client's settings: credentials of its own, so that nothing looks for the operator's. */
function config(inRegion: string) {
  return { region: inRegion, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
}

/** A signal that never aborts, for calling a check alone. */
export const noAbort = new AbortController().signal;

export function preflightAccount() {
  const sts = new STSClient(config(region));
  const iam = new IAMClient(config(region));
  const lambda = new LambdaClient(config(region));
  const dynamodb = new DynamoDBClient(config(region));
  const secretsManager = new SecretsManagerClient(config(region));
  const kms = new KMSClient(config(region));
  const regions = [region, 'us-east-1'];
  const ssm = new Map(regions.map((each) => [each, new SSMClient(config(each))]));
  const acm = new Map(regions.map((each) => [each, new ACMClient(config(each))]));
  const clients: PreflightClients = {
    sts,
    iam,
    lambda,
    dynamodb,
    secretsManager,
    kms,
    ssm: (each) => ssm.get(each) as SSMClient,
    acm: (each) => acm.get(each) as ACMClient,
  };
  const stubs = {
    sts: mockClient(sts),
    iam: mockClient(iam),
    lambda: mockClient(lambda),
    dynamodb: mockClient(dynamodb),
    secretsManager: mockClient(secretsManager),
    kms: mockClient(kms),
    ssm: new Map([...ssm].map(([each, client]) => [each, mockClient(client)])),
    acm: new Map([...acm].map(([each, client]) => [each, mockClient(client)])),
  };
  stubs.sts
    .on(GetCallerIdentityCommand)
    .resolves({ Account: account, Arn: ssoSessionArn, UserId: 'AROA:alice' });
  for (const each of regions) {
    stubs.ssm
      .get(each)
      ?.on(GetParameterCommand)
      .resolves({ Parameter: { Value: '21' } });
    stubs.acm
      .get(each)
      ?.on(DescribeCertificateCommand)
      .callsFake(({ CertificateArn }: { CertificateArn: string }) => ({
        Certificate: { CertificateArn, Status: 'ISSUED', DomainName: 'mfa.example.com' },
      }));
  }
  stubs.iam.on(GetRoleCommand).callsFake(({ RoleName }: { RoleName: string }) => {
    if (RoleName === ssoRoleName) return { Role: { RoleName, Arn: ssoRoleArn } };
    if (regions.some((each) => RoleName === bootstrapRoleName(each)))
      return { Role: { RoleName, Arn: `arn:aws:iam::${account}:role/${RoleName}` } };
    throw new NoSuchEntityException({
      message: `The role with name ${RoleName} cannot be found.`,
      $metadata: {},
    });
  });
  stubs.lambda
    .on(GetAccountSettingsCommand)
    .resolves({ AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } });
  stubs.dynamodb.on(DescribeTableCommand).callsFake(({ TableName }: { TableName: string }) => ({
    Table: {
      TableName,
      TableStatus: 'ACTIVE',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    },
  }));
  stubs.secretsManager
    .on(DescribeSecretCommand)
    .callsFake(({ SecretId }: { SecretId: string }) => ({ ARN: SecretId }));
  stubs.kms.on(DescribeKeyCommand).callsFake(({ KeyId }: { KeyId: string }) => ({
    KeyMetadata: { KeyId, Arn: KeyId, KeyState: 'Enabled', Enabled: true },
  }));
  return { clients, ...stubs };
}

/** A region the account never bootstrapped: no version parameter, no execution role. */
export function withoutBootstrap(aws: ReturnType<typeof preflightAccount>, inRegion: string): void {
  const notFound = { message: 'not found', $metadata: {} };
  aws.ssm.get(inRegion)?.on(GetParameterCommand).rejects(new ParameterNotFound(notFound));
  aws.iam
    .on(GetRoleCommand, { RoleName: bootstrapRoleName(inRegion) })
    .rejects(new NoSuchEntityException(notFound));
}

export const preflightUsage = 'Usage: npm run admin -- preflight --region <region> …';

/**
 * `npm run admin -- preflight …` in process against the account: what it prints on stdout and stderr, the exit code
 * it ends with, and how often it let its clients go.
 */
export async function preflight(values: PreflightValues, aws = preflightAccount()) {
  const printed: string[] = [];
  let destroyed = 0;
  let exitCode = 0;
  let stderr = '';
  try {
    await preflightCommand(values, {
      usage: preflightUsage,
      clients: async () => ({ ...aws.clients, destroy: () => destroyed++ }),
      print: (line) => printed.push(line),
      assemblyDirectory: 'no-assembly-here',
      timeoutMs: 1000,
    });
  } catch (error) {
    if (!(error instanceof CliFailure)) throw error;
    exitCode = error.exitCode;
    stderr = error.usage ? `${error.message}\n\n${error.usage}` : error.message;
  }
  return { stdout: printed.join('\n'), exitCode, stderr, destroyed };
}
