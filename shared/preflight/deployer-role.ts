import type { IAMClient } from '@aws-sdk/client-iam';
import { defaultDeployerRoleArns } from '#shared/api-keys/key-custody-principals';
import { accountOf, resourceOf } from '#shared/preflight/arn';
import { type ArnSetting, admits, howToAdmit, patternsOf } from '#shared/preflight/arn-setting';
import { unlessDenied } from '#shared/preflight/aws-errors';
import { bootstrapCommand } from '#shared/preflight/bootstrap';
import type { Caller } from '#shared/preflight/caller';
import { type CheckResult, cannotCheck, fix, ok } from '#shared/preflight/check-result';
import { roleArn } from '#shared/preflight/roles';

export interface DeployerPlan {
  readonly caller: Caller;
  readonly qualifier: string;
  /** `-c deployerRoles`, if the deploy will give it. */
  readonly deployerRoles?: readonly string[];
}

/** The role the CDK bootstrap makes for CloudFormation to deploy through, one per region. */
export function bootstrapExecutionRoleName(qualifier: string, account: string, region: string): string {
  return `cdk-${qualifier}-cfn-exec-role-${account}-${region}`;
}

/** CloudFormation deploys through the bootstrap's execution role unless told another: whether it is there. */
export async function checkBootstrapExecutionRole(
  iam: IAMClient,
  plan: DeployerPlan & { readonly region: string },
  signal: AbortSignal,
): Promise<CheckResult> {
  const { account } = plan.caller;
  const check = `deployer role ${plan.region}`;
  const name = bootstrapExecutionRoleName(plan.qualifier, account, plan.region);
  const bootstrap = `run ${bootstrapCommand(account, plan.region, plan.qualifier)}`;
  return checkRole(iam, { check, name, plan }, { found: `no role ${name}`, action: bootstrap }, signal);
}

/** A role the operator deploys with instead (`cdk deploy --role-arn`, a pipeline's): whether it is there. */
export async function checkDeployerRole(
  iam: IAMClient,
  plan: DeployerPlan & { readonly roleArn: string },
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = 'deployer role';
  const { account } = plan.caller;
  const [kind, ...path] = (resourceOf(plan.roleArn) ?? '').split('/');
  const name = path.at(-1);
  if (kind !== 'role' || !name)
    return fix(check, `${plan.roleArn} is not a role's ARN`, 'give --deployer-role the ARN of an IAM role');
  if (accountOf(plan.roleArn) !== account)
    return cannotCheck(
      check,
      `${plan.roleArn} is not in account ${account}, which these credentials see`,
      'check it with credentials of its own account',
    );
  const missing = {
    found: `no role ${name} in account ${account}`,
    action: 'create it, or name the role you deploy with',
  };
  return checkRole(iam, { check, name, plan }, missing, signal);
}

/**
 * The role of that name must be there (`missing` says what to do if not), and be one of the deployer roles, which
 * alone the key's policy lets write the secrets.
 */
async function checkRole(
  iam: IAMClient,
  { check, name, plan }: { readonly check: string; readonly name: string; readonly plan: DeployerPlan },
  missing: { readonly found: string; readonly action: string },
  signal: AbortSignal,
): Promise<CheckResult> {
  let arn: string | undefined;
  try {
    arn = await roleArn(iam, name, signal);
  } catch (error) {
    return unlessDenied(check, 'iam:GetRole', `role ${name}`, error);
  }
  if (!arn) return fix(check, missing.found, missing.action);
  const setting: ArnSetting = {
    context: 'deployerRoles',
    given: plan.deployerRoles,
    defaults: defaultDeployerRoleArns(plan.caller.partition, plan.caller.account),
  };
  if (admits(setting, arn)) return ok(check, `${arn} exists, and may write the stack's secrets with its key`);
  return fix(
    check,
    `${arn} is not among the deployer roles (${patternsOf(setting).join(', ')}): CloudFormation could not write the stack's secrets`,
    howToAdmit(setting, arn),
  );
}
