import { type Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The findings of cdk-nag's AwsSolutions pack this stack accepts, each with its reason, in one place. Anything else
 * it finds fails `cdk synth`.
 */
export function acknowledgeFindings(
  stack: Stack,
  constructs: { readonly apiKeySecret: IConstruct; readonly apiKeyRingProvider: IConstruct },
): void {
  Validations.of(stack).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'AWSLambdaBasicExecutionRole allows only logs:CreateLogGroup, CreateLogStream and PutLogEvents, which each ' +
        'function needs to write its own logs; every data permission is granted separately from the route table.',
    },
    {
      id: 'AwsSolutions::AwsSolutions-APIG4',
      reason:
        'Signed routes authenticate in the function: the LaunchKey protocol binds each JWT to the method, path, body ' +
        'hash and a single-use jti (docs/protocol.md#signed-requests), which no API Gateway authorizer can check. The /public ' +
        'and /v1/ping routes are public by design, and /v1/poll and /device/v3/link carry their own credentials.',
    },
  );
  Validations.of(constructs.apiKeySecret).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SMG4',
    reason:
      'The ring is rotated with `admin api-key rotate`, which publishes the new public key before the private key ' +
      'joins and keeps old keys so signatures and bodies made with them still verify; a Secrets Manager rotation ' +
      'function replacing the value would break both.',
  });
  Validations.of(constructs.apiKeyRingProvider).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::<ApiKeyRingFunction03B454C1.Arn>:*]',
    reason:
      "The CDK provider framework may invoke any version of the key ring function; the wildcard covers only that function's qualifiers.",
  });
}
