import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { deployResource } from '#infra/deploy-provider';
import type { FunctionRoles } from '#infra/route-function';

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
    this.accepted = deployResource(this, {
      handler: 'deploy/origin-secrets',
      resourceType: 'Custom::OriginSecrets',
      properties: { SecretIds: props.secrets.map((secret) => secret.secretArn) },
      roles: props.roles,
      roleName: 'OriginSecrets',
      grant: (role) => {
        for (const secret of props.secrets) secret.grantRead(role);
      },
    }).getAttString('AcceptedSecrets');
  }
}
