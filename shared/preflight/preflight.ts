import type { ACMClient } from '@aws-sdk/client-acm';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { IAMClient } from '@aws-sdk/client-iam';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { STSClient } from '@aws-sdk/client-sts';
import { loginHandlers } from '#infra/routes';
import { errorName } from '#shared/preflight/aws-errors';
import { checkBootstrap } from '#shared/preflight/bootstrap';
import type { RequiredBootstrapVersion } from '#shared/preflight/bootstrap-version';
import { checkCredentials } from '#shared/preflight/caller';
import { checkCertificate } from '#shared/preflight/certificate';
import { type CheckResult, cannotCheck } from '#shared/preflight/check-result';
import { checkBootstrapExecutionRole, checkDeployerRole } from '#shared/preflight/deployer-role';
import {
  checkExistingKey,
  checkExistingSecret,
  checkExistingTable,
  type ExistingResource,
} from '#shared/preflight/existing-resources';
import { checkKeyAdministrator } from '#shared/preflight/key-administrator';
import { checkLambdaConcurrency } from '#shared/preflight/lambda-concurrency';
import { NoAnswerError, withinTime } from '#shared/preflight/time-limit';
import type { ExistingResources } from '#shared/existing-resources';

/** The region CloudFront takes its web ACLs and certificates from. */
export const edgeRegion = 'us-east-1';

/** What the first deploy will be: the values of its `-c` settings that the checks depend on. */
export interface PreflightSettings {
  /** The stack's region. */
  readonly region: string;
  /** CloudFront and WAF in front (`-c edge=waf`, the default), whose web ACL lives in us-east-1. */
  readonly edge: boolean;
  /** The CDK bootstrap's qualifier. */
  readonly qualifier: string;
  readonly requiredBootstrapVersion: RequiredBootstrapVersion;
  readonly loginReservedConcurrency?: number;
  readonly keyAdministrators?: readonly string[];
  /** The role CloudFormation deploys through, when not the bootstrap's (`cdk deploy --role-arn`). */
  readonly deployerRole?: string;
  readonly deployerRoles?: readonly string[];
  readonly existing: ExistingResources;
  readonly certificate?: { readonly arn: string; readonly domainName?: string };
  /** How long each check may wait for AWS. */
  readonly timeoutMs: number;
}

/** The clients the checks call, in the stack's region unless they take one. */
export interface PreflightClients {
  readonly sts: STSClient;
  readonly iam: IAMClient;
  readonly lambda: LambdaClient;
  readonly dynamodb: DynamoDBClient;
  readonly secretsManager: SecretsManagerClient;
  readonly kms: KMSClient;
  ssm(region: string): SSMClient;
  acm(region: string): ACMClient;
}

/** The regions the deploy touches: the stack's, and us-east-1 for the edge's own stack. */
export function deployRegions(settings: Pick<PreflightSettings, 'region' | 'edge'>): string[] {
  return settings.edge && settings.region !== edgeRegion ? [settings.region, edgeRegion] : [settings.region];
}

type Check = (signal: AbortSignal) => Promise<CheckResult>;

/**
 * Every check, the credentials first (the others need the account), then the rest at once. AWS out of reach, or no
 * credentials, is thrown as the SDK reports it (a NoAnswerError when STS does not answer in time).
 */
export async function runPreflight(
  clients: PreflightClients,
  settings: PreflightSettings,
): Promise<CheckResult[]> {
  const { result, caller } = await withinTime(settings.timeoutMs, 'STS', (signal) =>
    checkCredentials(clients.sts, signal),
  );
  if (!caller) return [result];
  const { region, qualifier, existing, certificate } = settings;
  const checks: [name: string, run: Check][] = [];
  const add = (name: string, run: Check) => checks.push([name, run]);

  const required = settings.requiredBootstrapVersion;
  for (const each of deployRegions(settings)) {
    const target = { account: caller.account, region: each, qualifier, required };
    add(`bootstrap ${each}`, (signal) => checkBootstrap(clients.ssm(each), target, signal));
  }
  const deployer = { caller, qualifier, deployerRoles: settings.deployerRoles };
  const { deployerRole } = settings;
  if (deployerRole) {
    add('deployer role', (signal) =>
      checkDeployerRole(clients.iam, { ...deployer, roleArn: deployerRole }, signal),
    );
  } else {
    for (const each of deployRegions(settings)) {
      const plan = { ...deployer, region: each };
      add(`deployer role ${each}`, (signal) => checkBootstrapExecutionRole(clients.iam, plan, signal));
    }
  }
  const concurrency = {
    region,
    loginReservedConcurrency: settings.loginReservedConcurrency,
    loginFunctions: loginHandlers.length,
  };
  add('Lambda concurrency', (signal) => checkLambdaConcurrency(clients.lambda, concurrency, signal));
  const administrators = { caller, administrators: settings.keyAdministrators };
  add('key administrator', (signal) => checkKeyAdministrator(clients.iam, administrators, signal));

  const adopt = <Client>(
    label: string,
    id: string | undefined,
    client: Client,
    check: (client: Client, resource: ExistingResource, signal: AbortSignal) => Promise<CheckResult>,
  ) => {
    if (id === undefined) return;
    const resource = { label, id, region };
    add(`existing ${label}`, (signal) => check(client, resource, signal));
  };
  adopt('table', existing.tableName, clients.dynamodb, checkExistingTable);
  adopt('audit table', existing.auditTableName, clients.dynamodb, checkExistingTable);
  adopt('API key secret', existing.apiKeySecretArn, clients.secretsManager, checkExistingSecret);
  adopt('hash key secret', existing.hashKeySecretArn, clients.secretsManager, checkExistingSecret);
  adopt('VAPID keys secret', existing.vapidKeysSecretArn, clients.secretsManager, checkExistingSecret);
  adopt('KMS key', existing.keyArn, clients.kms, checkExistingKey);

  if (certificate) {
    const plan = {
      ...certificate,
      region: settings.edge ? edgeRegion : region,
      because: settings.edge
        ? `CloudFront takes certificates from ${edgeRegion} only`
        : "with -c edge=none the domain is API Gateway's, which takes a certificate of the stack's region",
    };
    add('certificate', (signal) => checkCertificate(clients.acm(plan.region), plan, signal));
  }
  return [result, ...(await Promise.all(checks.map(([name, run]) => settle(name, run, settings.timeoutMs))))];
}

/** A check that could not finish says so in its line instead of failing the others. */
async function settle(name: string, run: Check, timeoutMs: number): Promise<CheckResult> {
  try {
    return await withinTime(timeoutMs, name, run);
  } catch (error) {
    if (error instanceof NoAnswerError)
      return cannotCheck(name, `AWS did not answer within ${timeoutMs / 1000} s`, 'run preflight again');
    return cannotCheck(
      name,
      `${errorName(error)}: ${(error as Error).message}`,
      'run preflight again; if it says the same, check this by hand',
    );
  }
}
