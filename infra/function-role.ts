import {
  type AddToPrincipalPolicyResult,
  PolicyDocument,
  type PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * A role for the service's functions that holds its grants itself, in one inline policy, where CDK would add an
 * AWS::IAM::Policy resource beside each role: the same statements, half the resources. It may write only to the log
 * group its functions log to, not create or write any log group as AWSLambdaBasicExecutionRole would.
 */
export class FunctionRole extends Role {
  private readonly inlinePolicy: PolicyDocument;

  constructor(scope: Construct, id: string, logGroup: ILogGroup) {
    const grants = new PolicyDocument();
    super(scope, id, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: { Grants: grants },
    });
    this.inlinePolicy = grants;
    logGroup.grantWrite(this);
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.inlinePolicy.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}
