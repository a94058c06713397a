import { mkdirSync } from 'node:fs';
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { fallbackRoute, httpRoutes, routeId } from '#infra/routes';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';
import { auditReaderRoute } from '#shared/audit/reader-route';
import { roleStatements } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
}

function synthesize(props: AuthorizationServiceStackProps = {}): Record<string, Resource> {
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling, as test/infra/stack.test.ts does: the template is otherwise the same.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new AuthorizationServiceStack(app, 'Test', props);
  return Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
}

let resources: Record<string, Resource>;
let auditTableId: string;

beforeAll(() => {
  resources = synthesize();
  const tables = Object.keys(resources).filter((id) => id.startsWith('AuditTable'));
  if (tables.length !== 1) throw new Error(`One audit table expected, found ${tables.join(', ') || 'none'}`);
  auditTableId = tables[0] as string;
});

const actionsOf = (statement: Statement) => [statement.Action].flat();

/** Whether a statement's resources name the audit table (or could: a wildcard). */
function reachesAuditTable(statement: Statement): boolean {
  const text = JSON.stringify(statement.Resource);
  return text.includes(`"${auditTableId}"`) || text === '"*"' || text.includes('"*"');
}

/** Every statement of every policy attached to a role, by the role's logical id. */
function statementsByRole(): Map<string, Statement[]> {
  return roleStatements(resources) as Map<string, Statement[]>;
}

/** The DynamoDB actions a role may take on the audit table. */
function auditActionsOf(roleId: string): string[] {
  return (statementsByRole().get(roleId) ?? [])
    .filter((statement) => statement.Effect === 'Allow' && reachesAuditTable(statement))
    .flatMap(actionsOf)
    .filter((action) => action.startsWith('dynamodb:'))
    .sort();
}

function functionOf(logicalIdPrefix: string): Resource {
  const found = Object.entries(resources).find(
    ([id, resource]) =>
      resource.Type === 'AWS::Lambda::Function' &&
      id.startsWith(logicalIdPrefix) &&
      !id.slice(logicalIdPrefix.length).match(/^[A-Z][a-z]/),
  );
  if (!found) throw new Error(`No function ${logicalIdPrefix}`);
  return found[1];
}

function roleOf(fn: Resource): string {
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

function environmentOf(fn: Resource): Record<string, unknown> {
  return (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
}

describe('the audit store', () => {
  it('is a table of its own: on demand, point-in-time recovery, TTL, retained and deletion-protected', () => {
    const table = resources[auditTableId] as Resource;
    expect(table.Type).toBe('AWS::DynamoDB::GlobalTable');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
    const [replica] = table.Properties.Replicas as Record<string, unknown>[];
    expect(replica).toMatchObject({
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('refuses updates, deletes and batch writes to every principal in its resource policy', () => {
    const [replica] = (resources[auditTableId] as Resource).Properties.Replicas as {
      ResourcePolicy: { PolicyDocument: { Statement: Statement[] } };
    }[];
    const statements = replica?.ResourcePolicy.PolicyDocument.Statement ?? [];
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
      }),
    ]);
  });

  it('is destroyed with the stack and unprotected when data is not protected', () => {
    const unprotected = synthesize({ removalPolicy: RemovalPolicy.DESTROY });
    const [id] = Object.keys(unprotected).filter((key) => key.startsWith('AuditTable'));
    const table = unprotected[id as string] as Resource;
    expect(table.DeletionPolicy).toBe('Delete');
    expect((table.Properties.Replicas as Record<string, unknown>[])[0]).toMatchObject({
      DeletionProtectionEnabled: false,
    });
  });
});

describe('grants on the audit table', () => {
  it('let every API function put records and nothing else, and the reader Query and nothing else', () => {
    const routes = [
      ...httpRoutes.map((route) => ({ key: `${route.method} ${route.path}`, id: routeId(route), ...route })),
      { key: 'fallback', id: 'Fallback', ...fallbackRoute },
    ];
    const granted = Object.fromEntries(
      routes.map((route) => {
        const fn = functionOf(route.id);
        const { AUDIT_TABLE_NAME, AUDIT_RETENTION_DAYS } = environmentOf(fn);
        return [route.key, { actions: auditActionsOf(roleOf(fn)), AUDIT_TABLE_NAME, AUDIT_RETENTION_DAYS }];
      }),
    );
    const table = { Ref: auditTableId };
    const expected = Object.fromEntries(
      routes.map((route) => [
        route.key,
        route.key === auditReaderRoute
          ? { actions: ['dynamodb:Query'], AUDIT_TABLE_NAME: table, AUDIT_RETENTION_DAYS: undefined }
          : route.access.audit === 'append'
            ? { actions: ['dynamodb:PutItem'], AUDIT_TABLE_NAME: table, AUDIT_RETENTION_DAYS: '400' }
            : { actions: [], AUDIT_TABLE_NAME: undefined, AUDIT_RETENTION_DAYS: undefined },
      ]),
    );
    expect(granted).toEqual(expected);
    // Every signed route, the device link and the fallback append.
    const appending = Object.keys(granted).filter((key) =>
      granted[key]?.actions.includes('dynamodb:PutItem'),
    );
    expect(appending).toEqual(
      expect.arrayContaining(['POST /device/v3/link', 'fallback', 'POST /service/v3/auths']),
    );
    expect(appending).toHaveLength(routes.length - 1 - routes.filter((route) => !route.access.audit).length);
  });

  it('let no other function or role touch the audit table', () => {
    const roleIds = Object.keys(resources).filter((id) => resources[id]?.Type === 'AWS::IAM::Role');
    const touching = roleIds.filter((id) => auditActionsOf(id).length > 0);
    const functionRoles = new Set(
      Object.values(resources)
        .filter((resource) => resource.Type === 'AWS::Lambda::Function')
        .filter((fn) => environmentOf(fn).AUDIT_TABLE_NAME !== undefined)
        .map(roleOf),
    );
    expect(new Set(touching)).toEqual(functionRoles);
    const actions = new Set(touching.map((id) => auditActionsOf(id).join(' ')));
    expect(actions).toEqual(new Set(['dynamodb:PutItem', 'dynamodb:Query']));
  });

  it('keep records for auditRetentionDays', () => {
    const shorter = synthesize({ auditRetentionDays: 90 });
    const fn = Object.entries(shorter).find(
      ([id, resource]) => resource.Type === 'AWS::Lambda::Function' && id.startsWith('PostServiceV3Auths'),
    )?.[1] as Resource;
    expect(environmentOf(fn).AUDIT_RETENTION_DAYS).toBe('90');
  });
});
