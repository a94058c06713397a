import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import type { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableActions } from '#infra/route-function';
import {
  type Access,
  consumerId,
  fallbackRoute,
  httpRoutes,
  announcementSweep,
  keyRingAccess,
  pushConsumers,
  routeId,
  webAppRoute,
  webhookConsumers,
  consoleAuditRoute,
  consoleRoute,
} from '#infra/routes';
import { AuthorizationServiceStack } from '#infra/stack';
import { type ItemKind, leadingKeyPattern } from '#shared/store/item-kinds';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

let stack: Stack;
/** The service inside the stack, whose children are the functions and the table. */
let service: Construct;
let resources: Record<string, Resource>;
let tableId: string;

beforeAll(() => {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the policies are the same, and `cdk synth` bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const serviceStack = new AuthorizationServiceStack(app, 'Test');
  stack = serviceStack;
  service = serviceStack.service;
  resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  tableId = logicalIdOf('Table');
});

function logicalIdOf(path: string): string {
  const construct = service.node.findChild(path);
  return stack.getLogicalId(construct.node.defaultChild as CfnResource);
}

/** Every function of the stack that runs the project's code, with the access its row declares. */
function functionsWithTheirRows(): { id: string; access: Access }[] {
  return [
    ...httpRoutes.map((route) => ({ id: routeId(route), access: route.access })),
    { id: 'Fallback', access: fallbackRoute.access },
    { id: 'WebAuthenticator', access: webAppRoute.access },
    { id: 'ConsoleApi', access: consoleRoute.access },
    { id: 'ConsoleAudit', access: consoleAuditRoute.access },
    ...[...webhookConsumers, ...pushConsumers].map((consumer) => ({
      id: consumerId(consumer),
      access: consumer.access,
    })),
    { id: 'ApiKeyRingFunction', access: keyRingAccess },
    // Rotates the ring on a schedule with the key ring function's role.
    { id: 'ApiKeyScheduleFunction', access: keyRingAccess },
    { id: 'SweepAnnouncements', access: announcementSweep.access },
  ];
}

const cfnFunction = (functionId: string) =>
  service.node.findChild(functionId).node.defaultChild as CfnResource;

/** The statements of every policy on a function's role: its own inline ones and those attached to it. */
function statementsOf(functionId: string): Statement[] {
  const fn = service.node.findChild(functionId) as unknown as IFunction;
  const role = fn.role?.node.defaultChild as CfnResource | undefined;
  if (!role) throw new Error(`${functionId} has no role of the stack's`);
  const roleId = stack.getLogicalId(role);
  return policyStatements((id, roles) => id === roleId || roles.some((ref) => ref.Ref === roleId));
}

type PolicyDocument = { Statement: Statement[] };

/** Statements of the stack's policies: roles' inline ones, and policies attached to roles. */
function policyStatements(attachedTo: (id: string, roles: { Ref: string }[]) => boolean): Statement[] {
  return Object.entries(resources).flatMap(([id, resource]) => {
    const { Type: type, Properties: properties } = resource;
    if (type === 'AWS::IAM::Role') {
      const inline = (properties.Policies ?? []) as { PolicyDocument: PolicyDocument }[];
      return attachedTo(id, []) ? inline.flatMap((policy) => policy.PolicyDocument.Statement) : [];
    }
    if (type !== 'AWS::IAM::Policy' && type !== 'AWS::IAM::ManagedPolicy') return [];
    return attachedTo(id, (properties.Roles ?? []) as { Ref: string }[])
      ? (properties.PolicyDocument as PolicyDocument).Statement
      : [];
  });
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const namesTheTable = (statement: Statement) => JSON.stringify(statement.Resource).includes(`"${tableId}"`);
const namesAnIndex = (statement: Statement) => JSON.stringify(statement.Resource).includes('/index/');
/** A statement on the table's items (an index's statements are checked apart). */
const onTheItems = (statement: Statement) =>
  (namesTheTable(statement) && !namesAnIndex(statement)) ||
  (touchesDynamo(statement) && statement.Resource === '*');
const touchesDynamo = (statement: Statement) =>
  actionsOf(statement).some((action) => action === '*' || action.startsWith('dynamodb:'));
const leadingKeysOf = (statement: Statement) =>
  [statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []].flat();

/** What a function's statements grant on the table: the leading-key patterns of its reads and of its writes. */
function tableGrantOf(statements: Statement[]): { reads: string[]; writes: string[] } {
  const granted = { reads: new Set<string>(), writes: new Set<string>() };
  // Statements on other tables (the audit trail's) are not this test's; one on every table is, below.
  for (const statement of statements.filter(onTheItems)) {
    expect(statement.Effect).toBe('Allow');
    const actions = actionsOf(statement);
    const mode = actions.every((action) => (tableActions.read as readonly string[]).includes(action))
      ? 'reads'
      : actions.every((action) => (tableActions.write as readonly string[]).includes(action))
        ? 'writes'
        : undefined;
    expect({ actions, mode }).toEqual({ actions, mode: expect.any(String) });
    for (const pattern of leadingKeysOf(statement)) granted[mode as 'reads' | 'writes'].add(pattern);
  }
  return { reads: [...granted.reads].sort(), writes: [...granted.writes].sort() };
}

const patternsOf = (kinds: readonly ItemKind[] = []) => [...new Set(kinds.map(leadingKeyPattern))].sort();

describe('least privilege in the table', () => {
  it('knows the row of every function that runs the project’s code', () => {
    const checked = new Set(functionsWithTheirRows().map(({ id }) => stack.getLogicalId(cfnFunction(id))));
    const functions = Object.entries(resources).filter(
      ([, resource]) =>
        resource.Type === 'AWS::Lambda::Function' && resource.Properties.Handler === 'index.handler',
    );
    expect(functions.map(([id]) => id).filter((id) => !checked.has(id))).toEqual([]);
  });

  it('grants every function exactly the item kinds its row declares, reads apart from writes', () => {
    for (const { id, access } of functionsWithTheirRows()) {
      expect({ id, ...tableGrantOf(statementsOf(id)) }).toEqual({
        id,
        reads: patternsOf(access.table?.reads),
        writes: patternsOf(access.table?.writes),
      });
    }
  });

  it('grants the table nowhere without a LeadingKeys condition that every request must carry', () => {
    const onTheTable = policyStatements(() => true).filter(onTheItems);
    expect(onTheTable.length).toBeGreaterThan(0);
    for (const statement of onTheTable) {
      expect(statement.Effect).toBe('Allow');
      expect(
        actionsOf(statement).every((action) => action.startsWith('dynamodb:') && !action.includes('*')),
      ).toBe(true);
      expect(leadingKeysOf(statement).length).toBeGreaterThan(0);
      expect(statement.Condition?.Null).toEqual({ 'dynamodb:LeadingKeys': 'false' });
    }
  });

  it('reads through an index of the table only by Query, and only an index that projects nothing but keys', () => {
    const indexes = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::DynamoDB::GlobalTable')
      .flatMap(
        (table) =>
          (table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string; Projection: unknown }[],
      );
    for (const statement of policyStatements(() => true).filter(
      (each) => namesTheTable(each) && namesAnIndex(each),
    )) {
      expect(actionsOf(statement)).toEqual(['dynamodb:Query']);
      const named = indexes.filter(({ IndexName }) =>
        JSON.stringify(statement.Resource).includes(`/index/${IndexName}"`),
      );
      expect(named.map(({ Projection }) => Projection)).toEqual([{ ProjectionType: 'KEYS_ONLY' }]);
    }
  });

  it('keeps the public functions away from the partition of users, sealed TOTP secrets and push credentials', () => {
    const publicRoutes = httpRoutes.filter((route) => route.path.startsWith('/public/'));
    expect(publicRoutes.length).toBeGreaterThan(0);
    for (const route of publicRoutes) {
      const granted = tableGrantOf(statementsOf(routeId(route)));
      expect({ route: route.path, granted: [...granted.reads, ...granted.writes] }).toEqual({
        route: route.path,
        granted: expect.not.arrayContaining([leadingKeyPattern('directory')]),
      });
      expect(granted.writes).toEqual([]);
    }
  });
});
