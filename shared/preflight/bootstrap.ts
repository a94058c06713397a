import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { errorName, unlessDenied } from '#shared/preflight/aws-errors';
import type { RequiredBootstrapVersion } from '#shared/preflight/bootstrap-version';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';

/** CDK's own qualifier, the one `cdk bootstrap` and `cdk deploy` use unless told another. */
export const defaultQualifier = 'hnb659fds';

/** The command that bootstraps (or upgrades the bootstrap of) one account and region. */
export function bootstrapCommand(account: string, region: string, qualifier: string): string {
  const qualified = qualifier === defaultQualifier ? '' : ` --qualifier ${qualifier}`;
  return `npx cdk bootstrap aws://${account}/${region}${qualified}`;
}

export interface BootstrapTarget {
  readonly account: string;
  readonly region: string;
  readonly qualifier: string;
  readonly required: RequiredBootstrapVersion;
}

/** Whether a region is bootstrapped for CDK, as the SSM parameter the bootstrap stack writes says, and recently enough. */
export async function checkBootstrap(
  ssm: SSMClient,
  target: BootstrapTarget,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = `bootstrap ${target.region}`;
  const parameter = `/cdk-bootstrap/${target.qualifier}/version`;
  const command = bootstrapCommand(target.account, target.region, target.qualifier);
  let value: string | undefined;
  try {
    const answer = await ssm.send(new GetParameterCommand({ Name: parameter }), { abortSignal: signal });
    value = answer.Parameter?.Value;
  } catch (error) {
    if (errorName(error) === 'ParameterNotFound')
      return fix(check, `not bootstrapped for CDK (no SSM parameter ${parameter})`, `run ${command}`);
    return unlessDenied(check, 'ssm:GetParameter', parameter, error);
  }
  const { version, source } = target.required;
  const needs = `${source} needs ${version} or later`;
  if (!(Number(value) >= version))
    return fix(
      check,
      `bootstrap version ${value}, and ${needs}`,
      `run ${command}: it upgrades the bootstrap`,
    );
  return ok(check, `bootstrap version ${value} (${needs})`);
}
