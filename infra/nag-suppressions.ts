import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The findings of cdk-nag's AwsSolutions pack the service accepts, each with its reason, in one place. Anything else
 * it finds fails `cdk synth`.
 */
export function acknowledgeFindings(
  service: IConstruct,
  constructs: {
    readonly apiKeySecrets: readonly IConstruct[];
  },
): void {
  Validations.of(service).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords, which Lambda adds to each traced ' +
        "function's role, support no resource-level permissions, so their resource must be *; they only write trace " +
        'data. test/infra/observability.test.ts checks that no other statement of the stack names every resource.',
    },
    {
      id: 'AwsSolutions::AwsSolutions-APIG4',
      reason:
        'Signed routes authenticate in the function: the LaunchKey protocol binds each JWT to the method, path, body ' +
        'hash and a single-use jti (docs/protocol.md#signed-requests), which no API Gateway authorizer can check. The /public ' +
        'and /v1/ping routes are public by design, and /v1/poll and /device/v3/link carry their own credentials.',
    },
  );
  for (const secret of constructs.apiKeySecrets) {
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'The ring is rotated with `admin api-key rotate` (or on the optional apiKeyRotationDays schedule), which ' +
        'publishes the new public key before the private key joins and keeps old keys so signatures and bodies made ' +
        'with them still verify; a Secrets Manager rotation function replacing the value would break both. The hash ' +
        'key and the VAPID keys must never change: the table holds hashes and sealed values made with the first, ' +
        "and browsers' subscriptions are bound to the second.",
    });
  }
}

/** The role of a custom resource's provider framework (infra/deploy-provider.ts). */
export function acknowledgeProviderFindings(frameworkRole: IConstruct, onEventFunction: IConstruct): void {
  const resource = onEventFunction.node.defaultChild as CfnElement;
  Validations.of(frameworkRole).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(resource).getLogicalId(resource)}.Arn>:*]`,
    reason:
      "The CDK provider framework may invoke any version of its custom resource's function; the wildcard covers only that function's qualifiers.",
  });
}

/**
 * The edge's accepted findings (infra/edge.ts): the distribution's, and its origin secrets'. `defaultCertificate` when
 * the distribution answers on its cloudfront.net name only.
 */
export function acknowledgeEdgeFindings(
  constructs: { readonly distribution: IConstruct; readonly originSecrets: readonly IConstruct[] },
  defaultCertificate: boolean,
): void {
  Validations.of(constructs.distribution).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-CFR1',
      reason:
        "No geo restriction: the people who approve logins are wherever the operator's users are; the WAF rate rules " +
        'and the IP reputation list refuse abusive addresses instead.',
    },
    {
      id: 'AwsSolutions::AwsSolutions-CFR3',
      reason:
        'CloudFront caches nothing here: every request it forwards is in the API access log, and every request a WAF ' +
        'rule blocks is in the web ACL log, so CloudFront standard logs would only repeat them.',
    },
    ...(defaultCertificate
      ? [
          {
            id: 'AwsSolutions::AwsSolutions-CFR4',
            reason:
              'Without a custom domain the distribution answers on its cloudfront.net name, whose default certificate ' +
              'CloudFront serves with its own TLS policy, which no setting changes; each request is still signed and ' +
              'its body encrypted end to end. With -c domainName the distribution requires TLSv1.2_2021.',
          },
        ]
      : []),
  );
  for (const secret of constructs.originSecrets) {
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'Rotated by deploying with -c originSecretGeneration raised by one, which switches CloudFront and the functions ' +
        'in order in one deployment; a Secrets Manager rotation would change the value without updating either.',
    });
  }
}
