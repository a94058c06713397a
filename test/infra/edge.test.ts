import { mkdirSync } from 'node:fs';
import { App, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { edgeDefaults } from '#infra/edge';
import { httpRoutes, routeId, routeThrottles } from '#infra/routes';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';
import { originSecretsVariable, originVerifyHeader } from '#shared/http/middlewares/edge-origin';
import { roleStatements } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DependsOn?: string[];
}

function synthesize(props: AuthorizationServiceStackProps): { app: App; stack: Stack; template: Template } {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new AuthorizationServiceStack(app, 'Test', props);
  return { app, stack, template: Template.fromStack(stack) };
}

const resourcesOf = (template: Template) => template.toJSON().Resources as Record<string, Resource>;

/**
 * Logical id prefixes of the functions behind the API: one per route, the web apps', the console's two (its audit
 * trail's apart), the fallback's.
 */
const apiFunctionIds = [
  ...httpRoutes.map(routeId),
  'WebAuthenticator',
  'ConsoleApi',
  'ConsoleAudit',
  'Fallback',
];
const isApiFunction = (id: string) =>
  apiFunctionIds.some((prefix) => new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id));

/** The functions behind the API, and every other function of the stack. */
function functionsOf(template: Template): { api: [string, Resource][]; others: [string, Resource][] } {
  const functions = Object.entries(resourcesOf(template)).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  return {
    api: functions.filter(([id]) => isApiFunction(id)),
    others: functions.filter(([id]) => !isApiFunction(id)),
  };
}
const apiFunctions = (template: Template) => functionsOf(template).api;

const environmentOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};

/** CloudFormation's dynamic reference to a secret made in the stack, as CDK writes it. */
const secretReference = (logicalIdPattern: RegExp) =>
  Match.objectLike({
    'Fn::Join': [
      '',
      [
        '{{resolve:secretsmanager:',
        { Ref: Match.stringLikeRegexp(logicalIdPattern.source) },
        ':SecretString:::}}',
      ],
    ],
  });

/**
 * The functions' accepted origin secrets: the custom resource that reads them (functions/deploy/origin-secrets.ts,
 * which answers their values in this order) and the value the functions' environment takes from it.
 */
function acceptedSecrets(template: Template): { secretIds: unknown; value: unknown } {
  const [[id, resource] = []] = Object.entries(template.findResources('Custom::OriginSecrets')) as [
    string,
    Resource,
  ][];
  if (!id || !resource) throw new Error('no Custom::OriginSecrets resource');
  return { secretIds: resource.Properties.SecretIds, value: { 'Fn::GetAtt': [id, 'AcceptedSecrets'] } };
}

const usEast1Certificate =
  'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const euCertificate = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';

describe('the edge, on (the default of `cdk synth`)', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthesize({ edge: edgeDefaults }));
  });

  it('puts a CloudFront distribution in front of the API that caches nothing and forwards everything but Host', () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        HttpVersion: 'http2and3',
        WebACLId: { 'Fn::GetAtt': [Match.stringLikeRegexp('EdgeFirewallWebAcl'), 'Arn'] },
        DefaultCacheBehavior: Match.objectLike({
          // The managed CachingDisabled and AllViewerExceptHostHeader policies.
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
          OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        }),
        Origins: [
          Match.objectLike({
            DomainName: {
              'Fn::Join': [
                '',
                Match.arrayWith([{ Ref: Match.stringLikeRegexp('HttpApi') }, '.execute-api.']),
              ],
            },
            CustomOriginConfig: Match.objectLike({
              OriginProtocolPolicy: 'https-only',
              OriginSSLProtocols: ['TLSv1.2'],
            }),
            OriginCustomHeaders: [
              { HeaderName: originVerifyHeader, HeaderValue: secretReference(/EdgeOriginSecret1/) },
            ],
          }),
        ],
      }),
    });
  });

  it('has a CloudFront web ACL: reputation list, known bad inputs, and two per-address rates answering 429', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [webAcl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as Resource[];
    const properties = webAcl?.Properties as {
      Scope: string;
      Rules: {
        Name: string;
        Statement: Record<string, Record<string, unknown>>;
        Action?: unknown;
        VisibilityConfig: Record<string, unknown>;
      }[];
    };
    expect(properties.Scope).toBe('CLOUDFRONT');
    expect(properties.Rules.map((rule) => rule.Name)).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'PublicRoutesPerAddress',
      'EveryPathPerAddress',
    ]);
    for (const rule of properties.Rules) {
      expect(rule.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, MetricName: rule.Name });
    }
    const [, , publicRoutes, everyPath] = properties.Rules;
    expect(everyPath?.Statement.RateBasedStatement).toEqual({
      Limit: edgeDefaults.rateLimit,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'IP',
    });
    expect(publicRoutes?.Statement.RateBasedStatement).toMatchObject({
      Limit: edgeDefaults.publicRateLimit,
      AggregateKeyType: 'IP',
    });
    const scoped = JSON.stringify(publicRoutes?.Statement.RateBasedStatement?.ScopeDownStatement);
    for (const path of ['/device/v3/link', '/public/v3/qrcodes/', '/v1/'])
      expect(scoped).toContain(`"${path}"`);
    for (const rule of [publicRoutes, everyPath]) {
      expect(rule?.Action).toEqual({
        Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'tooMany' } },
      });
    }
  });

  it("alarms on WAF's 429 answers: what its two per-address rates block, at the 429 alarm's threshold", () => {
    const [webAcl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as Resource[];
    const webAclMetric = (webAcl?.Properties.VisibilityConfig as { MetricName: string }).MetricName;
    const alarms = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).filter(
      (alarm) => JSON.stringify(alarm.Properties.Metrics ?? '').includes('AWS/WAFV2'),
    );
    expect(alarms).toHaveLength(1);
    const [alarm] = alarms as [Resource];
    expect(alarm.Properties).toMatchObject({
      Threshold: 10,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const metrics = (
      alarm.Properties.Metrics as { MetricStat?: { Metric: Record<string, unknown> } }[]
    ).flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : []));
    expect(metrics).toEqual(
      ['PublicRoutesPerAddress', 'EveryPathPerAddress'].map((rule) => ({
        Namespace: 'AWS/WAFV2',
        MetricName: 'BlockedRequests',
        Dimensions: expect.arrayContaining([
          { Name: 'WebACL', Value: webAclMetric },
          { Name: 'Rule', Value: rule },
        ]),
      })),
    );
  });

  it('logs what WAF blocks to a retained-for-a-while log group, without the Authorization header', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: 'aws-waf-logs-Test' });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
      LoggingFilter: Match.objectLike({ DefaultBehavior: 'DROP' }),
    });
  });

  it('refuses, in a template synthesized without a region, a deployment anywhere but us-east-1', () => {
    const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>;
    expect(Object.values(rules).map((rule) => rule.Assertions[0]?.Assert)).toContainEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'],
    });
  });

  it("gives every function behind the API the origin secrets and CloudFront's URL, and no worker", () => {
    const { api: functions, others } = functionsOf(template);
    // Each route's, the fallback's, the web apps' and the console's two.
    expect(functions.length).toBe(httpRoutes.length + 4);
    const accepted = acceptedSecrets(template);
    expect(accepted.secretIds).toEqual([
      { Ref: expect.stringMatching(/^EdgeOriginSecret1/) },
      { Ref: expect.stringMatching(/^EdgeOriginSecret2/) },
    ]);
    for (const [, fn] of functions) {
      const variables = environmentOf(fn);
      expect(variables[originSecretsVariable]).toEqual(accepted.value);
      expect(JSON.stringify(variables.PUBLIC_BASE_URL)).toContain('DomainName');
    }
    for (const [, fn] of others) expect(environmentOf(fn)[originSecretsVariable]).toBeUndefined();
    template.hasOutput('BaseUrl', {
      Value: {
        'Fn::Join': [
          '',
          ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('Distribution'), 'DomainName'] }],
        ],
      },
    });
  });

  it("hands the functions the origin secrets by a custom resource: CloudFront's header holds the only reference", () => {
    expect(JSON.stringify(template.toJSON()).match(/\{\{resolve:secretsmanager:/g)).toHaveLength(1);
  });

  it('lets only the custom resource’s function read the origin secrets, and it nothing more', () => {
    const resources = resourcesOf(template);
    const originSecrets = Object.keys(resources).filter((id) => /^EdgeOriginSecret\d/.test(id));
    expect(originSecrets).toHaveLength(2);
    const readers = [...roleStatements(resources)].filter(([, statements]) =>
      statements.some((statement) =>
        originSecrets.some((id) => JSON.stringify(statement.Resource).includes(id)),
      ),
    );
    expect(readers).toHaveLength(1);
    const [[readerRole, statements] = []] = readers;
    const readingFunctions = Object.entries(resources)
      .filter(
        ([, resource]) =>
          resource.Type === 'AWS::Lambda::Function' &&
          (resource.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0] === readerRole,
      )
      .map(([id]) => id);
    expect(readingFunctions).toEqual([expect.stringMatching(/^EdgeOriginSecretsFunction/)]);
    const actions = (statements ?? []).flatMap((statement) => [statement.Action].flat());
    expect(new Set(actions)).toEqual(
      new Set([
        'secretsmanager:GetSecretValue',
        'secretsmanager:DescribeSecret',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
      ]),
    );
  });

  it('keeps the API endpoint up as the origin, with no custom domain on API Gateway', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      DisableExecuteApiEndpoint: false,
    });
  });
});

describe('the edge in a region', () => {
  it('puts the web ACL in a stack of its own in us-east-1 when the service is elsewhere', () => {
    const { app, template } = synthesize({
      edge: edgeDefaults,
      env: { account: '123456789012', region: 'eu-west-1' },
      crossRegionReferences: true,
    });
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const edgeStack = app.node.findChild('TestEdge') as Stack;
    expect(edgeStack.region).toBe('us-east-1');
    Template.fromStack(edgeStack).resourceCountIs('AWS::WAFv2::WebACL', 1);
    // Named for the service's region, so that one in a second region with the same stack name gets its own.
    expect(edgeStack.stackName).toBe('Test-edge-eu-west-1');
    Template.fromStack(edgeStack).hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: 'aws-waf-logs-Test-edge-eu-west-1',
    });
    const rules = (template.toJSON() as { Rules?: Record<string, unknown> }).Rules ?? {};
    expect(Object.keys(rules)).not.toContain('EdgeFirewallNeedsUsEast1');
  });

  it("notifies the alarm address of the edge's 429s from a topic of the web ACL's stack, where its metrics are", () => {
    const { app } = synthesize({
      edge: edgeDefaults,
      env: { account: '123456789012', region: 'eu-west-1' },
      crossRegionReferences: true,
      alarmEmail: 'ops@example.com',
    });
    const edgeTemplate = Template.fromStack(app.node.findChild('TestEdge') as Stack);
    const [topicId] = Object.keys(edgeTemplate.findResources('AWS::SNS::Topic'));
    edgeTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Endpoint: 'ops@example.com',
      Protocol: 'email',
    });
    edgeTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [{ Ref: topicId }] });
    edgeTemplate.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } }),
        ]),
      }),
    });
  });

  it('keeps the web ACL in the stack itself in us-east-1', () => {
    const { app, template } = synthesize({
      edge: edgeDefaults,
      env: { account: '123456789012', region: 'us-east-1' },
    });
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    expect(app.node.tryFindChild('TestEdge')).toBeUndefined();
  });
});

describe('the edge with a custom domain', () => {
  it('serves the domain on CloudFront with TLS 1.2 at least, and points the DNS target at it', () => {
    const { template } = synthesize({
      edge: edgeDefaults,
      customDomain: { domainName: 'mfa.example.com', certificateArn: usEast1Certificate },
    });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['mfa.example.com'],
        ViewerCertificate: Match.objectLike({
          AcmCertificateArn: usEast1Certificate,
          MinimumProtocolVersion: 'TLSv1.2_2021',
        }),
      }),
    });
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    template.hasOutput('BaseUrl', { Value: 'https://mfa.example.com' });
    template.hasOutput('CustomDomainTarget', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('Distribution'), 'DomainName'] },
    });
    for (const [, fn] of apiFunctions(template)) {
      expect(environmentOf(fn).PUBLIC_BASE_URL).toBe('https://mfa.example.com');
    }
  });

  it('refuses a certificate outside us-east-1, saying where it must be', () => {
    expect(() =>
      synthesize({
        edge: edgeDefaults,
        customDomain: { domainName: 'mfa.example.com', certificateArn: euCertificate },
      }),
    ).toThrow(/must be in us-east-1.*is in eu-west-1/);
  });
});

describe('rotating the origin secret', () => {
  it('sends the current generation and accepts it and the next; the functions update after CloudFront', () => {
    const { template } = synthesize({ edge: { ...edgeDefaults, originSecretGeneration: 2 } });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Origins: [
          Match.objectLike({
            OriginCustomHeaders: [
              { HeaderName: originVerifyHeader, HeaderValue: secretReference(/EdgeOriginSecret2/) },
            ],
          }),
        ],
      }),
    });
    const distributionId = Object.keys(template.findResources('AWS::CloudFront::Distribution'))[0] as string;
    const accepted = acceptedSecrets(template);
    expect(accepted.secretIds).toEqual([
      { Ref: expect.stringMatching(/^EdgeOriginSecret2/) },
      { Ref: expect.stringMatching(/^EdgeOriginSecret3/) },
    ]);
    for (const [, fn] of apiFunctions(template)) {
      expect(environmentOf(fn)[originSecretsVariable]).toEqual(accepted.value);
      expect(fn.DependsOn).toContain(distributionId);
    }
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret')).join()).not.toMatch(
      /EdgeOriginSecret1/,
    );
  });
});

describe('the edge, off (-c edge=none)', () => {
  it('yields no CloudFront, no WAF, no origin secret', () => {
    const { template } = synthesize({});
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(Object.keys(template.findResources('AWS::SecretsManager::Secret')).join()).not.toMatch(/Origin/);
    for (const [, fn] of apiFunctions(template))
      expect(environmentOf(fn)[originSecretsVariable]).toBeUndefined();
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: false });
  });

  it("binds passkeys to the API's own URL, the BaseUrl output, so that no Host header chooses the relying party", () => {
    const { template } = synthesize({});
    const baseUrl = Object.values(template.findOutputs('BaseUrl'))[0]?.Value as unknown;
    expect(baseUrl).toBeDefined();
    for (const [, fn] of apiFunctions(template)) {
      expect(environmentOf(fn).WEBAUTHN_ORIGINS).toEqual(baseUrl);
      expect(environmentOf(fn).PUBLIC_BASE_URL).toBeUndefined();
    }
  });

  it('disables the API endpoint when a custom domain is on API Gateway, so nothing goes around it', () => {
    const { template } = synthesize({
      customDomain: { domainName: 'mfa.example.com', certificateArn: euCertificate },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
  });
});

describe('per-route throttles of the unsigned routes', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthesize({}));
  });

  it('are on the stage for every unsigned route, tighter than the stage, and wait for their routes', () => {
    const [stageId, stage] = Object.entries(template.findResources('AWS::ApiGatewayV2::Stage'))[0] as [
      string,
      Resource,
    ];
    const defaults = stage.Properties.DefaultRouteSettings as Record<string, number>;
    const settings = stage.Properties.RouteSettings as Record<string, Record<string, number>>;
    const routeKeys = new Map(
      Object.entries(template.findResources('AWS::ApiGatewayV2::Route')).map(([id, route]) => [
        (route as Resource).Properties.RouteKey as string,
        id,
      ]),
    );
    const unsigned = [...routeKeys.keys()].filter((key) =>
      /^GET (\/public\/|\/v1\/|\/authenticator|\/console)|^POST \/device\/v3\/link$|^ANY \/console\/api\//.test(
        key,
      ),
    );
    expect(unsigned.length).toBeGreaterThanOrEqual(13);
    expect(Object.keys(settings).sort()).toEqual(unsigned.sort());
    for (const [key, throttle] of Object.entries(settings)) {
      expect(throttle).toEqual({
        ThrottlingRateLimit: routeThrottles[key]?.rateLimit,
        ThrottlingBurstLimit: routeThrottles[key]?.burstLimit,
      });
      expect(throttle.ThrottlingRateLimit).toBeLessThan(defaults.ThrottlingRateLimit as number);
      expect(throttle.ThrottlingBurstLimit).toBeLessThan(defaults.ThrottlingBurstLimit as number);
      expect(stage.DependsOn).toContain(routeKeys.get(key));
    }
    expect(stageId).toBeTruthy();
  });
});
