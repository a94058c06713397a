import { Arn, ArnFormat, Aws, CfnRule, Duration, Fn, RemovalPolicy, Stack, Stage, Token } from 'aws-cdk-lib';
import { type Alarm, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { acknowledgeEdgeFindings } from '#infra/nag-suppressions';
import { OriginSecrets } from '#infra/origin-secrets';
import type { FunctionRoles } from '#infra/route-function';
import { thresholdAlarm } from '#infra/threshold-alarm';
import { originSecretsVariable, originVerifyHeader } from '#shared/http/middlewares/edge-origin';

/** What the edge allows per source address, in requests per five minutes (WAF's rate-based rule window). */
export interface EdgeSettings {
  /** Every path. Default {@link edgeDefaults}. */
  readonly rateLimit: number;
  /** The unsigned routes that cost the most or could be guessed: device linking, QR codes, the v1 API. */
  readonly publicRateLimit: number;
  /**
   * Which origin secret CloudFront sends (1, 2, …): raise it by one to rotate. The functions accept this one and the
   * next, so CloudFront can switch before they change.
   */
  readonly originSecretGeneration: number;
}

/**
 * 10 000 per 5 minutes is 33 requests per second from one address, a third of the stage's default 100: an
 * application's backend behind one NAT address creating auth requests and polling them fits, and one abuser cannot
 * take the whole stage. 300 per 5 minutes (one a second on average) is far above what a person linking a device or
 * scanning a code does, and bounds link-code guessing per address.
 */
export const edgeDefaults: EdgeSettings = {
  rateLimit: 10_000,
  publicRateLimit: 300,
  originSecretGeneration: 1,
};

/** WAF's bounds for a rate-based rule's limit. */
export const rateLimitBounds = { min: 10, max: 2_000_000_000 } as const;

/** The answer to an address over its limit: API Gateway's own throttle answer, which clients already handle. */
const tooManyRequestsBody = JSON.stringify({ message: 'Too Many Requests' });

export interface EdgeProps {
  readonly api: HttpApi;
  /** The API stage; a named one becomes the origin's path, so clients see the API at the distribution's root. */
  readonly stageName: string;
  readonly settings: EdgeSettings;
  /** Served by CloudFront, with an ACM certificate that must be in us-east-1. */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  readonly logRetention: RetentionDays;
  /** Where the origin secrets' custom resource gets its roles and log group. */
  readonly roles: FunctionRoles;
  /** Requests WAF's rate rules answer 429 in 5 minutes that raise the edge's 429 alarm. */
  readonly tooManyRequestsThreshold: number;
}

/**
 * CloudFront with AWS WAF in front of the HTTP API, which cannot take a web ACL itself. CloudFront caches nothing and
 * forwards every header but Host, the query and every method; WAF refuses addresses on Amazon's reputation list,
 * known exploit patterns and any address over its rate. The API's own endpoint stays up (CloudFront's origin), so
 * CloudFront adds an origin secret the functions check ({@link protect}).
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  /**
   * Goes off when WAF's per-address rates answer 429: it lives beside the web ACL, in us-east-1 where WAF publishes a
   * CloudFront web ACL's metrics, so it is in the service's stack only when that is in us-east-1 too.
   */
  readonly tooManyRequestsAlarm: Alarm;
  /** What clients are given: the custom domain, or the distribution's domain. */
  readonly baseUrl: string;
  private readonly acceptedSecrets: string;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { settings } = props;
    for (const [name, limit] of [
      ['rateLimit', settings.rateLimit],
      ['publicRateLimit', settings.publicRateLimit],
    ] as const) {
      if (!Number.isInteger(limit) || limit < rateLimitBounds.min || limit > rateLimitBounds.max) {
        throw new Error(`The edge's ${name} must be a whole number from 10 to 2 000 000 000, not ${limit}`);
      }
    }
    if (!Number.isInteger(settings.originSecretGeneration) || settings.originSecretGeneration < 1) {
      throw new Error(
        `originSecretGeneration must be a whole number from 1, not ${settings.originSecretGeneration}`,
      );
    }

    // The value CloudFront sends and the next one, made by CloudFormation. CloudFront's origin header takes the first
    // by dynamic reference, the template's only one; the functions take both from a custom resource that reads them.
    const generation = settings.originSecretGeneration;
    const [sent, next] = [generation, generation + 1].map(
      (n) =>
        new Secret(this, `OriginSecret${n}`, {
          description: `Origin secret ${n} CloudFront adds to every request it forwards to the MFA authorization API`,
          generateSecretString: { passwordLength: 48, excludePunctuation: true },
          removalPolicy: RemovalPolicy.DESTROY,
        }),
    ) as [Secret, Secret];
    this.acceptedSecrets = new OriginSecrets(this, 'OriginSecrets', {
      secrets: [sent, next],
      roles: props.roles,
    }).accepted;

    const firewallScope = webAclScope(this);
    const webAcl = new EdgeFirewall(firewallScope, 'EdgeFirewall', {
      settings,
      logRetention: props.logRetention,
      // The web ACL's own stack's name, which says the region of a service outside us-east-1: two services of the
      // same stack name in two regions get a log group and metrics each.
      namePrefix: Stack.of(firewallScope).stackName,
      tooManyRequestsThreshold: props.tooManyRequestsThreshold,
    });
    this.tooManyRequestsAlarm = webAcl.tooManyRequestsAlarm;

    const certificateArn = props.customDomain?.certificateArn;
    if (certificateArn && !Token.isUnresolved(certificateArn)) {
      const region = Arn.split(certificateArn, ArnFormat.SLASH_RESOURCE_NAME).region;
      if (region !== 'us-east-1') {
        throw new Error(
          `With the edge on (-c edge=waf) the custom domain is served by CloudFront, whose certificate must be in ` +
            `us-east-1; ${certificateArn} is in ${region}. Request or import one in us-east-1, or use -c edge=none.`,
        );
      }
    }

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'MFA authorization API: WAF in front, nothing cached',
      defaultBehavior: {
        origin: new HttpOrigin(`${props.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
          ...(props.stageName === '$default' ? {} : { originPath: `/${props.stageName}` }),
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          customHeaders: { [originVerifyHeader]: sent.secretValue.unsafeUnwrap() },
        }),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // Every viewer header but Host (API Gateway routes by its own), with CloudFront-Viewer-Address among them.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        compress: false,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      webAclId: webAcl.arn,
      // The cloudfront.net certificate's policy is CloudFront's own and fixed: a minimum applies only to a domain's.
      ...(props.customDomain
        ? {
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
            domainNames: [props.customDomain.domainName],
            certificate: Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.customDomain.certificateArn,
            ),
          }
        : {}),
    });
    this.baseUrl = props.customDomain
      ? `https://${props.customDomain.domainName}`
      : `https://${this.distribution.distributionDomainName}`;

    acknowledgeEdgeFindings(
      { distribution: this.distribution, originSecrets: [sent, next] },
      !props.customDomain,
    );
  }

  /**
   * Puts a function behind the edge: it accepts only requests with the origin secret, links to the public base URL,
   * and is updated after the distribution, so during a rotation CloudFront switches to the value the functions
   * already accept before they drop the old one.
   */
  protect(fn: LambdaFunction): void {
    fn.addEnvironment(originSecretsVariable, this.acceptedSecrets);
    fn.addEnvironment('PUBLIC_BASE_URL', this.baseUrl);
    fn.node.addDependency(this.distribution);
  }
}

/**
 * Where the web ACL goes: a CloudFront web ACL lives in us-east-1. A service in us-east-1 holds it itself; a service in
 * another region gets a small stack of its own pinned to us-east-1, beside its stack in the same app or stage (its
 * stack must set crossRegionReferences). A stack synthesized without a region (offline) holds it too, with a rule that
 * refuses a deployment anywhere but us-east-1: synthesize with the target region (CDK_DEFAULT_REGION, as `cdk deploy`
 * does) to get the separate stack.
 */
function webAclScope(edge: Edge): Construct {
  const service = edge.node.scope as Construct;
  const stack = Stack.of(edge);
  if (Token.isUnresolved(stack.region)) {
    new CfnRule(service, 'EdgeFirewallNeedsUsEast1', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'This template was synthesized without a region, so it holds the CloudFront web ACL, which only ' +
            'us-east-1 takes. Synthesize with the target region (CDK_DEFAULT_REGION or a profile) to put the web ACL ' +
            'in a stack of its own in us-east-1, or deploy with -c edge=none.',
        },
      ],
    });
    return service;
  }
  if (stack.region === 'us-east-1') return service;
  const owner = stack.nestedStackParent ?? stack;
  if (!owner._crossRegionReferences) {
    throw new Error(
      `The edge of a service in ${stack.region} puts its web ACL in a stack of its own in us-east-1, which the ` +
        `stack ${owner.stackName} must be allowed to reference: create that stack with crossRegionReferences: true.`,
    );
  }
  const stage = Stage.of(owner) ?? owner.node.root;
  // Named after the stack's path in its stage: `MfaAuthorizationService` → `MfaAuthorizationServiceEdge`.
  const id = `${owner.node.scopes
    .slice(stage.node.scopes.length)
    .map((scope) => scope.node.id)
    .join('')}Edge`;
  const existing = stage.node.tryFindChild(id);
  if (existing) return existing;
  return new Stack(stage, id, {
    // The region in the name: a second region's service of the same stack name gets a web ACL stack of its own.
    stackName: `${owner.stackName}-edge-${owner.region}`,
    description: `AWS WAF web ACL of ${owner.stackName}'s CloudFront distribution (CloudFront web ACLs live in us-east-1)`,
    env: { ...(Token.isUnresolved(owner.account) ? {} : { account: owner.account }), region: 'us-east-1' },
    crossRegionReferences: true,
  });
}

interface EdgeFirewallProps {
  readonly settings: EdgeSettings;
  readonly logRetention: RetentionDays;
  /** Names the log group and the web ACL's metrics, unique to the web ACL's stack. */
  readonly namePrefix: string;
  readonly tooManyRequestsThreshold: number;
}

/** The web ACL: managed rule groups first, then the per-address rates; its blocked requests logged. */
class EdgeFirewall extends Construct {
  readonly arn: string;
  readonly tooManyRequestsAlarm: Alarm;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName,
    });
    const managed = (priority: number, name: string): CfnWebACL.RuleProperty => ({
      name,
      priority,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
    });
    const tooManyRequests = {
      block: { customResponse: { responseCode: 429, customResponseBodyKey: 'tooMany' } },
    };
    const path = (
      searchString: string,
      positionalConstraint: 'EXACTLY' | 'STARTS_WITH',
    ): CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        searchString,
        positionalConstraint,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });

    const webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'MFA authorization API: reputation, known bad inputs, per-address rates',
      defaultAction: { allow: {} },
      customResponseBodies: { tooMany: { contentType: 'APPLICATION_JSON', content: tooManyRequestsBody } },
      visibilityConfig: visibility(props.namePrefix),
      rules: [
        managed(0, 'AWSManagedRulesAmazonIpReputationList'),
        managed(1, 'AWSManagedRulesKnownBadInputsRuleSet'),
        // Left out: the Common rule set, whose body and size rules refuse the compact JWE bodies and long signed
        // headers every request carries; the anonymous IP list, which would lock out users on VPNs, relays and
        // hosting providers, where many applications' backends run.
        {
          name: 'PublicRoutesPerAddress',
          priority: 2,
          statement: {
            rateBasedStatement: {
              limit: props.settings.publicRateLimit,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                orStatement: {
                  statements: [
                    path('/device/v3/link', 'EXACTLY'),
                    path('/public/v3/qrcodes/', 'STARTS_WITH'),
                    path('/v1/', 'STARTS_WITH'),
                  ],
                },
              },
            },
          },
          action: tooManyRequests,
          visibilityConfig: visibility('PublicRoutesPerAddress'),
        },
        {
          name: 'EveryPathPerAddress',
          priority: 3,
          statement: {
            rateBasedStatement: {
              limit: props.settings.rateLimit,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
            },
          },
          action: tooManyRequests,
          visibilityConfig: visibility('EveryPathPerAddress'),
        },
      ],
    });
    this.arn = webAcl.attrArn;
    const blocked = (rule: string) =>
      new Metric({
        namespace: 'AWS/WAFV2',
        metricName: 'BlockedRequests',
        // A CloudFront web ACL's metrics carry no Region dimension.
        dimensionsMap: { WebACL: props.namePrefix, Rule: rule },
        statistic: 'Sum',
        period: Duration.minutes(5),
      });
    this.tooManyRequestsAlarm = thresholdAlarm(this, 'TooManyRequests', {
      metric: new MathExpression({
        expression: 'FILL(publicRoutes, 0) + FILL(everyPath, 0)',
        usingMetrics: {
          publicRoutes: blocked('PublicRoutesPerAddress'),
          everyPath: blocked('EveryPathPerAddress'),
        },
        period: Duration.minutes(5),
        label: 'Answered 429 by WAF',
      }),
      threshold: props.tooManyRequestsThreshold,
      evaluationPeriods: 1,
      description:
        `${props.tooManyRequestsThreshold} or more requests answered 429 by the edge in 5 minutes: an address went ` +
        "over WAF's per-address rate (edgeRateLimit, edgePublicRateLimit)",
    });

    // WAF writes only to a log group whose name starts with aws-waf-logs-. Only what a rule blocked or counted is
    // kept, and never the Authorization header.
    const logs = new LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${props.namePrefix}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: webAcl.attrArn,
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logs.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
    });
  }
}
