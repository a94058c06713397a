import { PolicyStatement, type PolicyDocument } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { deployResource } from '#infra/deploy-provider';
import type { FunctionRoles } from '#infra/route-function';

/**
 * The key policy of an existing KMS key the service adopts (`-c existingKeyArn`), put on it at deploy by a custom
 * resource (functions/deploy/key-policy.ts). A retained key's policy names the roles of the stack that made it, which a
 * stack deployed again replaces with new ones; a key made by hand names none: without this, the new roles could not
 * read the secrets. Its function may put this key's policy and do nothing else.
 */
export class ExistingKeyPolicy extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: { readonly key: IKey; readonly policy: PolicyDocument; readonly roles: FunctionRoles },
  ) {
    super(scope, id);
    deployResource(this, {
      handler: 'deploy/key-policy',
      resourceType: 'Custom::KeyPolicy',
      properties: { KeyId: props.key.keyArn, Policy: props.policy },
      roles: props.roles,
      roleName: 'KeyPolicy',
      grant: (role) =>
        role.addToPrincipalPolicy(
          new PolicyStatement({ actions: ['kms:PutKeyPolicy'], resources: [props.key.keyArn] }),
        ),
    });
  }
}
