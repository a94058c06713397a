import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack, Stage } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { edgeDefaults } from '#infra/edge';
import { MfaAuthorizationService } from '#infra/mfa-authorization-service';
import { AuthorizationServiceStack } from '#infra/stack';

/** The logical ids of the app's templates before the service became a construct (eab4a92), by template. */
const logicalIdsBefore = JSON.parse(readFileSync('test/fixtures/stack-logical-ids.json', 'utf8')) as Record<
  'main' | 'edge',
  Record<string, string>
>;

type Resources = Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>;

// Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
mkdirSync('.tmp', { recursive: true });
process.env.TMPDIR = '.tmp';
// Skip bundling: the template is otherwise identical, and `cdk synth` bundles for real.
const fastApp = () =>
  new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
const resourcesOf = (stack: Stack) => Template.fromStack(stack).toJSON().Resources as Resources;
const typesOf = (resources: Resources) =>
  Object.fromEntries(Object.entries(resources).map(([id, resource]) => [id, resource.Type]));

/** The ids of `before` that `now` no longer has with the same type. */
const missing = (before: Record<string, string>, now: Record<string, string>) =>
  Object.keys(before).filter((id) => now[id] !== before[id]);

/**
 * What the capacity work took out on purpose: each function's log group (the functions share one), each role's
 * policy resource (the grants are in the roles), and the provider framework's own role (a role of the service's).
 */
const removedOnPurpose = (id: string, type: string) =>
  (type === 'AWS::Logs::LogGroup' &&
    /Logs[0-9A-F]{8}$/.test(id) &&
    !/^(AccessLogs|EdgeFirewallLogs)/.test(id)) ||
  (type === 'AWS::IAM::Policy' && /DefaultPolicy[0-9A-F]{8}$/.test(id)) ||
  // A function's role is named after its grants (FunctionRoles, infra/function-role.ts): a route whose grants change gets another role.
  (type === 'AWS::IAM::Role' && id.startsWith('Roles')) ||
  id.startsWith('ApiKeyRingProviderframeworkonEventServiceRole');

/** What an existing deployment must never see replaced. */
const statefulTypes = [
  'AWS::DynamoDB::GlobalTable',
  'AWS::SecretsManager::Secret',
  'AWS::KMS::Key',
  'AWS::SQS::Queue',
];

describe("the app's stack around the construct", () => {
  it('keeps every logical id the stack had before the service became a construct', () => {
    // The fixture's configuration: the app's defaults, with an alarm address (its topic and subscription).
    const app = fastApp();
    const stack = new AuthorizationServiceStack(app, 'MfaAuthorizationService', {
      edge: edgeDefaults,
      alarmEmail: 'ops@example.com',
    });
    const now = typesOf(resourcesOf(stack));
    const gone = missing(logicalIdsBefore.main, now);
    expect(gone.filter((id) => !removedOnPurpose(id, logicalIdsBefore.main[id] as string))).toEqual([]);
    const stateful = Object.entries(logicalIdsBefore.main).filter(([, type]) => statefulTypes.includes(type));
    // Two tables, three key secrets and two origin secrets, the key, two queues and their dead letters.
    expect(stateful).toHaveLength(12);
    for (const [id, type] of stateful) expect({ id, type: now[id] }).toEqual({ id, type });

    const inRegion = fastApp();
    new AuthorizationServiceStack(inRegion, 'MfaAuthorizationService', {
      edge: edgeDefaults,
      alarmEmail: 'ops@example.com',
      env: { account: '123456789012', region: 'eu-west-1' },
      crossRegionReferences: true,
    });
    const edgeStack = inRegion.node.findChild('MfaAuthorizationServiceEdge') as Stack;
    expect(missing(logicalIdsBefore.edge, typesOf(resourcesOf(edgeStack)))).toEqual([]);
  });
});

describe('the construct in an app of your own', () => {
  it('is what the package exports as ./construct', async () => {
    const { exports } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, string>;
    };
    const module = (await import(pathToFileURL(resolve(exports['./construct'] ?? '')).href)) as Record<
      string,
      unknown
    >;
    expect(module.MfaAuthorizationService).toBe(MfaAuthorizationService);
  });

  it('needs no props at all', () => {
    const app = fastApp();
    const stack = new Stack(app, 'Plain');
    new MfaAuthorizationService(stack, 'Mfa');
    const resources = resourcesOf(stack);
    expect(
      Object.values(resources).filter((resource) => resource.Type === 'AWS::DynamoDB::GlobalTable'),
    ).toHaveLength(2);
  });

  it("reads source maps only when asked: Node's parsing of them costs a cold start a third of its init", () => {
    const nodeOptions = (sourceMaps: boolean) => {
      const stack = new Stack(fastApp(), 'Maps');
      new MfaAuthorizationService(stack, 'Mfa', { sourceMaps });
      const functions = Object.values(resourcesOf(stack)).filter(
        (resource) =>
          resource.Type === 'AWS::Lambda::Function' && resource.Properties?.Handler === 'index.handler',
      );
      expect(functions.length).toBeGreaterThan(50);
      return new Set(
        functions.map(
          (fn) =>
            (fn.Properties?.Environment as { Variables: Record<string, string> }).Variables.NODE_OPTIONS,
        ),
      );
    };
    expect(nodeOptions(false)).toEqual(new Set([undefined]));
    expect(nodeOptions(true)).toEqual(new Set(['--enable-source-maps']));
  });

  it('builds inside a stack of a stage, outside us-east-1, with its web ACL in a stack of its own beside it', () => {
    const app = fastApp();
    const stage = new Stage(app, 'Production');
    const stack = new Stack(stage, 'Identity', {
      env: { account: '123456789012', region: 'eu-west-1' },
      crossRegionReferences: true,
    });
    const service = new MfaAuthorizationService(new Construct(stack, 'Security'), 'Mfa', {
      edge: edgeDefaults,
    });
    const edgeStack = stage.node.findChild('IdentityEdge') as Stack;
    expect(edgeStack.region).toBe('us-east-1');
    expect(edgeStack.stackName).toMatch(/^Production-Identity-edge/);
    Template.fromStack(edgeStack).resourceCountIs('AWS::WAFv2::WebACL', 1);
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        WebACLId: { 'Fn::GetAtt': [Match.stringLikeRegexp('ExportsReader'), Match.anyValue()] },
      }),
    });
    expect(service.baseUrl).toBeDefined();
  });

  it('says what its stack needs when the web ACL must cross regions', () => {
    const app = fastApp();
    const stack = new Stack(app, 'Identity', { env: { account: '123456789012', region: 'eu-west-1' } });
    expect(() => new MfaAuthorizationService(stack, 'Mfa', { edge: edgeDefaults })).toThrow(
      /stack Identity must be allowed to reference: create that stack with crossRegionReferences: true/,
    );
  });
});
