import { type App, RemovalPolicy } from 'aws-cdk-lib';
import { edgeDefaults } from '#infra/edge';
import { existingResourceOptions } from '#shared/existing-resources';
import type { AuthorizationServiceStackProps } from '#infra/stack';
import type { ApiKeySize } from '#shared/api-keys/key-ring';

/**
 * The app's stack name and props from `cdk`'s context (`-c name=value`, or cdk.json's `context`): every option of
 * docs/deploy.md's table, checked, with the account and region `cdk` resolved.
 */
export function stackFromContext(app: App): { stackName: string; props: AuthorizationServiceStackProps } {
  const context = (name: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(name);
    if (value === undefined || value === '') return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new Error(`-c ${name} must be a single value`);
  };
  const number = (name: string): number | undefined => {
    const text = context(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`-c ${name} must be a positive number, not ${text}`);
    return value;
  };

  const domainName = context('domainName');
  const certificateArn = context('certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    throw new Error('-c domainName and -c certificateArn go together');
  }
  const clientErrorRatePercent = number('alarm4xxPercent');
  if (clientErrorRatePercent !== undefined && clientErrorRatePercent > 100) {
    throw new Error(`-c alarm4xxPercent must be at most 100, not ${clientErrorRatePercent}`);
  }
  const tooManyRequests = number('alarm429Count');
  const rateLimit = number('throttleRate');
  const burstLimit = number('throttleBurst');
  // CloudFront and WAF in front unless asked not to: the safe default (infra/edge.ts).
  const edgeMode = context('edge') ?? 'waf';
  if (edgeMode !== 'waf' && edgeMode !== 'none')
    throw new Error(`-c edge must be waf or none, not ${edgeMode}`);
  const edge =
    edgeMode === 'waf'
      ? {
          rateLimit: number('edgeRateLimit') ?? edgeDefaults.rateLimit,
          publicRateLimit: number('edgePublicRateLimit') ?? edgeDefaults.publicRateLimit,
          originSecretGeneration: number('originSecretGeneration') ?? edgeDefaults.originSecretGeneration,
        }
      : undefined;
  const loginReservedConcurrency = number('loginReservedConcurrency');
  if (loginReservedConcurrency !== undefined && !Number.isInteger(loginReservedConcurrency))
    throw new Error(`-c loginReservedConcurrency must be a whole number, not ${loginReservedConcurrency}`);
  const list = (name: string): string[] | undefined =>
    context(name)
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const props: AuthorizationServiceStackProps = {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    // -c protectData=false lets `cdk destroy` delete the data; by default it outlives the stack.
    removalPolicy: context('protectData') === 'false' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    allowHttpWebhooks: context('allowHttpWebhooks') === 'true',
    sourceMaps: context('sourceMaps') === 'true',
    ...(context('webhookAllowedNetworks')
      ? { webhookAllowedNetworks: context('webhookAllowedNetworks') }
      : {}),
    ...(context('stageName') ? { stageName: context('stageName') } : {}),
    ...(domainName && certificateArn ? { customDomain: { domainName, certificateArn } } : {}),
    ...(context('apiKeyBits') ? { apiKeyBits: number('apiKeyBits') as ApiKeySize } : {}),
    ...(loginReservedConcurrency ? { loginReservedConcurrency } : {}),
    ...(number('apiKeyMaxAgeDays') ? { apiKeyMaxAgeDays: number('apiKeyMaxAgeDays') } : {}),
    ...(number('apiKeyRotationDays') ? { apiKeyRotationDays: number('apiKeyRotationDays') } : {}),
    ...(list('keyAdministrators') ? { keyAdministrators: list('keyAdministrators') } : {}),
    ...(list('deployerRoles') ? { deployerRoles: list('deployerRoles') } : {}),
    ...(list('tableReplicaRegions') ? { tableReplicaRegions: list('tableReplicaRegions') } : {}),
    existing: Object.fromEntries(
      Object.entries(existingResourceOptions).flatMap(([field, option]) => {
        const value = context(option);
        return value ? [[field, value]] : [];
      }),
    ),
    ...(rateLimit || burstLimit
      ? { throttle: { rateLimit: rateLimit ?? 100, burstLimit: burstLimit ?? 200 } }
      : {}),
    ...(number('logRetentionDays') ? { logRetention: number('logRetentionDays') } : {}),
    ...(context('alarmEmail') ? { alarmEmail: context('alarmEmail') } : {}),
    alarmThresholds: {
      ...(clientErrorRatePercent ? { clientErrorRatePercent } : {}),
      ...(tooManyRequests ? { tooManyRequests } : {}),
      ...(number('alarmP99Ms') ? { p99LatencyMs: number('alarmP99Ms') } : {}),
      ...(number('alarmQueueAgeSeconds') ? { queueAgeSeconds: number('alarmQueueAgeSeconds') } : {}),
      ...(number('alarmConcurrency') ? { concurrentExecutions: number('alarmConcurrency') } : {}),
    },
    ...(context('pushContact') ? { pushContact: context('pushContact') } : {}),
    ...(number('auditRetentionDays') ? { auditRetentionDays: number('auditRetentionDays') } : {}),
    // The web ACL of a stack outside us-east-1 goes in a stack of its own there, whose ARN crosses regions.
    ...(edge ? { edge, crossRegionReferences: true } : {}),
  };
  return { stackName: context('stackName') ?? 'MfaAuthorizationService', props };
}
