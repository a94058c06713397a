import type { IAMClient } from '@aws-sdk/client-iam';
import { defaultKeyAdministratorArns } from '#shared/api-keys/key-custody-principals';
import { resourceOf } from '#shared/preflight/arn';
import { admits, howToAdmit, patternsOf } from '#shared/preflight/arn-setting';
import { unlessDenied } from '#shared/preflight/aws-errors';
import type { Caller } from '#shared/preflight/caller';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';
import { roleArn } from '#shared/preflight/roles';

export interface KeyAdministratorPlan {
  readonly caller: Caller;
  /** `-c keyAdministrators`, if the deploy will give it. */
  readonly administrators?: readonly string[];
}

/** The role of an assumed-role session, `arn:…:sts::…:assumed-role/<role>/<session>`. */
function assumedRole(arn: string): string | undefined {
  const [kind, role] = (resourceOf(arn) ?? '').split('/');
  return kind === 'assumed-role' ? role : undefined;
}

/**
 * Whether the caller will be one of the key administrators, whom the key's and the secrets' policies admit by
 * `aws:PrincipalArn`: for a role, the role's ARN with its path, which only IAM knows.
 */
export async function checkKeyAdministrator(
  iam: IAMClient,
  plan: KeyAdministratorPlan,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = 'key administrator';
  const { caller } = plan;
  const setting = {
    context: 'keyAdministrators',
    given: plan.administrators,
    defaults: defaultKeyAdministratorArns(caller.partition, caller.account),
  };
  let principal = caller.arn;
  const role = assumedRole(caller.arn);
  if (role) {
    try {
      const arn = await roleArn(iam, role, signal);
      if (!arn) throw new Error(`IAM has no role ${role}, which these credentials assumed`);
      principal = arn;
    } catch (error) {
      const unknown = "the role's path, which STS leaves out and the key's policy matches, is unknown";
      return unlessDenied(check, 'iam:GetRole', `role ${role}`, error, unknown);
    }
  }
  if (admits(setting, principal)) return ok(check, `${principal} may read and rotate the API's keys`);
  return fix(
    check,
    `${principal} is not among the key administrators (${patternsOf(setting).join(', ')}): admin api-key rotate would be denied`,
    howToAdmit(setting, principal),
  );
}
