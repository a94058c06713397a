import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import type { FunctionRole } from '#infra/function-role';
import { acknowledgeProviderFindings } from '#infra/nag-suppressions';

/**
 * The provider of one of the service's custom resources: its onEvent function, which CloudFormation's Create, Update
 * and Delete events reach through CDK's provider framework. The framework's function logs to the service's log group
 * under a role of the service's that may only invoke that one function.
 */
export function deployProvider(
  scope: Construct,
  id: string,
  props: { readonly onEventHandler: IFunction; readonly role: FunctionRole; readonly logGroup: ILogGroup },
): Provider {
  const provider = new Provider(scope, id, {
    onEventHandler: props.onEventHandler,
    logGroup: props.logGroup,
    frameworkOnEventRole: props.role,
  });
  acknowledgeProviderFindings(props.role, props.onEventHandler);
  return provider;
}
