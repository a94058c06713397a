import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationServiceStack } from '#infra/stack';
import { type PolicyStatementJson, statementsOfRole } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

let resources: Record<string, Resource>;

beforeAll(() => {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` in CI bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const template = Template.fromStack(new AuthorizationServiceStack(app, 'Test'));
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string): [string, Resource][] =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** Every statement of the inline policies of the role a function runs as. */
function statementsOf(functionId: string): PolicyStatementJson[] {
  const role = (resources[functionId]?.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
  return statementsOfRole(resources, role);
}

const functionId = (prefix: string) =>
  ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(prefix))?.[0] ?? '';

describe('the announcement sweep', () => {
  it('has a sparse, keys-only index of the answers still due to be announced on the table', () => {
    const [[, table] = []] = ofType('AWS::DynamoDB::GlobalTable');
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'announcements',
        KeySchema: [
          { AttributeName: 'announceShard', KeyType: 'HASH' },
          { AttributeName: 'announceDueAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
  });

  it('runs every minute, traced, and may query that index and send to the webhook queue', () => {
    const sweep = functionId('SweepAnnouncements');
    expect(sweep).not.toBe('');
    const rules = ofType('AWS::Events::Rule').filter(([, rule]) =>
      JSON.stringify(rule.Properties).includes(sweep),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [sweep, 'Arn'] } })],
    });
    expect(resources[sweep]?.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    const statements = statementsOf(sweep);
    const query = statements.filter((statement) => [statement.Action].flat().includes('dynamodb:Query'));
    expect(JSON.stringify(query)).toContain('/index/announcements');
    const onIndex = query.filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
    expect(onIndex.map((statement) => statement.Condition)).toEqual([
      {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['due#*'] },
        Null: { 'dynamodb:LeadingKeys': 'false' },
      },
    ]);
    expect(JSON.stringify(statements)).toMatch(/WebhookQueue/);
    expect(JSON.stringify(statements)).not.toMatch(/PushQueue|secretsmanager/);
  });

  it('lets the webhook worker clear the mark of the answers it takes', () => {
    const actions = statementsOf(functionId('EventsDeliverWebhooks')).flatMap((statement) =>
      [statement.Action].flat(),
    );
    expect(actions).toContain('dynamodb:UpdateItem');
  });
});
