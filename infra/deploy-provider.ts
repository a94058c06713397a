import { CustomResource } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import type { FunctionRole } from '#infra/function-role';
import { acknowledgeProviderFindings } from '#infra/nag-suppressions';
import type { FunctionRoles } from '#infra/route-function';
import { ServiceFunction } from '#infra/service-function';

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

export interface DeployResourceProps {
  /** The onEvent function's module under functions/, without extension. */
  readonly handler: string;
  readonly resourceType: `Custom::${string}`;
  readonly properties: Record<string, unknown>;
  readonly roles: FunctionRoles;
  /** The name of its function's role among `roles`; its provider's is that name with `Provider`. */
  readonly roleName: string;
  /** What its function may do beyond logging, and nothing else. */
  readonly grant: (role: FunctionRole) => void;
}

/**
 * A custom resource of the service with a function and a role of its own: `Function`, `Provider` and `Resource` in
 * `scope`. CloudFormation's events reach the function through deployProvider.
 */
export function deployResource(scope: Construct, props: DeployResourceProps): CustomResource {
  const { roles } = props;
  const role = roles.newRole(props.roleName);
  props.grant(role);
  const logGroup = roles.resources.functionLogs;
  const onEventHandler = new ServiceFunction(scope, 'Function', { handler: props.handler, role, logGroup });
  const provider = deployProvider(scope, 'Provider', {
    onEventHandler,
    role: roles.newRole(`${props.roleName}Provider`),
    logGroup,
  });
  return new CustomResource(scope, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: props.resourceType,
    properties: props.properties,
  });
}
