/**
 * Who the key custody admits besides the stack's own functions, as IAM ARN patterns (ArnLike). Written once for the
 * stack, which fills in CloudFormation's partition and account, and for the preflight, which fills in the caller's.
 */

/** The default key administrators: people signing in through IAM Identity Center, or as IAM users. */
export function defaultKeyAdministratorArns(partition: string, account: string): string[] {
  return [
    `arn:${partition}:iam::${account}:role/aws-reserved/sso.amazonaws.com/*`,
    `arn:${partition}:iam::${account}:user/*`,
  ];
}

/** The default deployers: the CDK bootstrap's CloudFormation execution roles, whatever their qualifier and region. */
export function defaultDeployerRoleArns(partition: string, account: string): string[] {
  return [`arn:${partition}:iam::${account}:role/cdk-*-cfn-exec-role-*`];
}
