import { CustomResource } from 'aws-cdk-lib';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { deployProvider } from '#infra/deploy-provider';
import type { FunctionRoles } from '#infra/route-function';
import { ServiceFunction } from '#infra/service-function';

/**
 * The values of the origin secrets the API's functions accept, for their environment: a custom resource whose onEvent
 * function (functions/deploy/origin-secrets.ts) reads the secrets at deploy time and answers them NoEcho, taken by
 * GetAtt. A dynamic reference in each function's environment would cost two of CloudFormation's 60 a template per
 * function; a read at cold start, a network call per container. Its properties name the secrets, so a rotation, which
 * makes a new one, updates it and then the functions.
 */
export class OriginSecrets extends Construct {
  /** `AcceptedSecrets`: the secrets' values, space-separated, in the order given. */
  readonly accepted: string;

  constructor(
    scope: Construct,
    id: string,
    props: { readonly secrets: readonly ISecret[]; readonly roles: FunctionRoles },
  ) {
    super(scope, id);
    const { roles } = props;
    const role = roles.newRole('OriginSecrets');
    for (const secret of props.secrets) secret.grantRead(role);
    const onEventHandler = new ServiceFunction(this, 'Function', {
      handler: 'deploy/origin-secrets',
      role,
      logGroup: roles.resources.functionLogs,
    });
    const provider = deployProvider(this, 'Provider', {
      onEventHandler,
      role: roles.newRole('OriginSecretsProvider'),
      logGroup: roles.resources.functionLogs,
    });
    this.accepted = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::OriginSecrets',
      properties: { SecretIds: props.secrets.map((secret) => secret.secretArn) },
    }).getAttString('AcceptedSecrets');
  }
}
