import { mkdirSync } from 'node:fs';
import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Access, consumerId, httpRoutes, pushConsumers, routeId, webhookConsumers } from '#infra/routes';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';
import { roleStatements as templateRoleStatements } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

interface Statement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

function synthesize(props: AuthorizationServiceStackProps = {}, nag = false) {
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new AuthorizationServiceStack(app, 'Test', props);
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const template = Template.fromStack(stack);
  return { app, template, resources: template.toJSON().Resources as Record<string, Resource> };
}

const account = '123456789012';
/** A template value as it resolves in account 123456789012, us-east-1: a role's ARN carries its logical id. */
function resolve(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if ('Ref' in node)
    return (
      (
        { 'AWS::Partition': 'aws', 'AWS::AccountId': account, 'AWS::Region': 'us-east-1' } as Record<
          string,
          string
        >
      )[node.Ref as string] ?? `ref:${String(node.Ref)}`
    );
  if ('Fn::GetAtt' in node) {
    const [id, attribute] = node['Fn::GetAtt'] as [string, string];
    return attribute === 'Arn' && id.startsWith('Roles') ? roleArn(id) : `${id}.${attribute}`;
  }
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(resolve).join(separator);
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}
const roleArn = (logicalId: string) => `arn:aws:iam::${account}:role/${logicalId}`;
const arnLike = (pattern: string, arn: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.?+^$()[\]{}|\\/]/g, '\\$&'))
      .join('.*')}$`,
  ).test(arn);
const list = (value: unknown) => [value].flat();
const actionsOf = (statement: Statement) => list(statement.Action) as string[];

let resources: Record<string, Resource>;
beforeAll(() => {
  ({ resources } = synthesize());
});

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const secretIds = () => ({
  apiKeys: ofType('AWS::SecretsManager::Secret').find(([id]) => id.startsWith('ApiKeyRing'))?.[0] as string,
  hashKey: ofType('AWS::SecretsManager::Secret').find(([id]) => id.startsWith('HashKey'))?.[0] as string,
  vapidKeys: ofType('AWS::SecretsManager::Secret').find(([id]) => id.startsWith('VapidKeys'))?.[0] as string,
});
const variables = {
  apiKeys: 'API_KEYS_SECRET_ID',
  hashKey: 'HASH_KEY_SECRET_ID',
  vapidKeys: 'VAPID_KEYS_SECRET_ID',
};
type Part = keyof typeof variables;
const parts = Object.keys(variables) as Part[];

/** Every role, by logical id, with the statements of its inline policies. */
function roleStatements(): Map<string, Statement[]> {
  return templateRoleStatements(resources) as Map<string, Statement[]>;
}

/** The parts of the keys a role may read, from its own policies. */
function partsReadBy(statements: Statement[]): Part[] {
  const ids = secretIds();
  return parts.filter((part) =>
    statements.some(
      (statement) =>
        statement.Effect === 'Allow' &&
        actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
        list(statement.Resource).some((resource) => (resource as { Ref?: string }).Ref === ids[part]),
    ),
  );
}

const serviceFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Handler === 'index.handler');
const roleOf = (fn: Resource) => (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
const environmentOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};
const managers = () =>
  new Set(
    serviceFunctions()
      .filter(([id]) => /^ApiKey(Ring|Schedule)Function/.test(id))
      .map(([, fn]) => roleOf(fn)),
  );

/** Whether a secret's resource policy refuses GetSecretValue to a principal. */
function refuses(part: Part, principalArn: string): boolean {
  const [, policy] = ofType('AWS::SecretsManager::ResourcePolicy').find(
    ([, resource]) => (resource.Properties.SecretId as { Ref: string }).Ref === secretIds()[part],
  ) as [string, Resource];
  return (policy.Properties.ResourcePolicy as { Statement: Statement[] }).Statement.some(
    (statement) =>
      statement.Effect === 'Deny' &&
      actionsOf(statement).includes('secretsmanager:GetSecretValue') &&
      !list(statement.Condition?.ArnNotLike?.['aws:PrincipalArn']).some((pattern) =>
        arnLike(resolve(pattern), principalArn),
      ),
  );
}

describe('which roles may read which key secret', () => {
  it('gives each function exactly the secrets its row names, as variables and as grants', () => {
    const rows: [string, Access][] = [
      ...httpRoutes.map((route) => [routeId(route), route.access] as [string, Access]),
      ...[...webhookConsumers, ...pushConsumers].map(
        (row) => [consumerId(row), row.access] as [string, Access],
      ),
    ];
    const roles = roleStatements();
    for (const [id, fn] of serviceFunctions()) {
      const row = rows.find(([name]) => new RegExp(`^${name}[0-9A-F]{8}$`).test(id));
      const manager = managers().has(roleOf(fn));
      const granted = partsReadBy(roles.get(roleOf(fn)) ?? []);
      const named = parts.filter((part) => environmentOf(fn)[variables[part]] !== undefined);
      expect({ id, granted }).toEqual({ id, granted: manager ? parts : named });
      const declared = row ? parts.filter((part) => row[1][part] === true) : named;
      expect({ id, named }).toEqual({ id, named: declared });
    }
  });

  it('lets only the push worker and GET /device/v3/push read the VAPID keys, and keeps the RSA keys from the push worker', () => {
    const vapid = [...httpRoutes, ...pushConsumers, ...webhookConsumers]
      .filter((row) => row.access.vapidKeys)
      .map((row) => row.handler);
    expect(vapid.sort()).toEqual(['device/get-push', 'events/deliver-pushes']);
    expect(pushConsumers.every((row) => !row.access.apiKeys)).toBe(true);
    const hashKey = httpRoutes.filter((row) => row.access.hashKey).length;
    expect(hashKey).toBeLessThan(httpRoutes.filter((row) => row.access.apiKeys).length / 2);
  });

  it('grants no other role a key secret, and only the key ring function and its schedule may write them', () => {
    const functionRoles = new Map(serviceFunctions().map(([, fn]) => [roleOf(fn), fn]));
    for (const [role, statements] of roleStatements()) {
      const readable = partsReadBy(statements);
      if (readable.length === 0) continue;
      expect({ role, known: functionRoles.has(role) }).toEqual({ role, known: true });
      const writes = statements.some((statement) =>
        actionsOf(statement).includes('secretsmanager:PutSecretValue'),
      );
      expect({ role, writes }).toEqual({ role, writes: managers().has(role) });
    }
  });
});

describe('the secrets’ resource policies', () => {
  it('refuse each value to every principal but its readers, the key ring function and the administrators', () => {
    const roles = roleStatements();
    for (const part of parts) {
      for (const [role, statements] of roles) {
        const reads = partsReadBy(statements).includes(part);
        expect({ part, role, refused: refuses(part, roleArn(role)) }).toEqual({
          part,
          role,
          refused: !reads,
        });
      }
      for (const manager of managers()) expect(refuses(part, roleArn(manager))).toBe(false);
      expect(
        refuses(
          part,
          `arn:aws:iam::${account}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Admin_0123`,
        ),
      ).toBe(false);
      expect(refuses(part, `arn:aws:iam::${account}:user/operator`)).toBe(false);
      expect(refuses(part, `arn:aws:iam::${account}:role/SomeOtherWorkload`)).toBe(true);
      expect(
        refuses(part, `arn:aws:iam::${account}:role/cdk-hnb659fds-cfn-exec-role-${account}-us-east-1`),
      ).toBe(true);
      expect(refuses(part, 'arn:aws:iam::999999999999:user/operator')).toBe(true);
    }
  });

  it('name only the administrators given with keyAdministrators, when given', () => {
    const given = `arn:aws:iam::${account}:role/KeyOperators`;
    ({ resources } = synthesize({ keyAdministrators: [given] }));
    try {
      for (const part of parts) {
        expect(refuses(part, given)).toBe(false);
        expect(refuses(part, `arn:aws:iam::${account}:user/operator`)).toBe(true);
      }
    } finally {
      ({ resources } = synthesize());
    }
  });
});

describe('the customer-managed key', () => {
  const keyOf = () => ofType('AWS::KMS::Key');

  it('encrypts every key secret and rotates yearly', () => {
    expect(keyOf()).toHaveLength(1);
    const [[keyId, key]] = keyOf() as [[string, Resource]];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    for (const id of Object.values(secretIds()))
      expect(resources[id]?.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('lets the account administer it, and use it only through Secrets Manager for the roles that read or write', () => {
    const [[, key]] = keyOf() as [[string, Resource]];
    const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
    const crypto = /^kms:(Decrypt|Encrypt|ReEncrypt|GenerateDataKey)/;
    const administration = statements.find((statement) => statement.Sid === 'AccountAdministersTheKey');
    expect(administration?.Condition).toBeUndefined();
    expect(actionsOf(administration as Statement)).toEqual(
      expect.arrayContaining([
        'kms:Put*',
        'kms:ScheduleKeyDeletion',
        'kms:CancelKeyDeletion',
        'kms:Describe*',
      ]),
    );
    expect(actionsOf(administration as Statement).filter((action) => crypto.test(action))).toEqual([]);
    for (const statement of statements.filter((each) =>
      actionsOf(each).some((action) => crypto.test(action)),
    )) {
      expect(resolve(statement.Condition?.StringEquals?.['kms:ViaService'])).toBe(
        'secretsmanager.us-east-1.amazonaws.com',
      );
      expect(statement.Condition?.ArnEquals ?? statement.Condition?.ArnLike).toBeDefined();
      expect(actionsOf(statement).filter((action) => action.includes('*'))).toEqual([]);
    }
    const decrypting = statements.find((statement) => statement.Sid === 'RolesReadTheirSecrets') as Statement;
    const named = list(decrypting.Condition?.ArnEquals?.['aws:PrincipalArn']).map(resolve).sort();
    const readers = [...roleStatements()]
      .filter(([, each]) => partsReadBy(each).length > 0)
      .map(([role]) => roleArn(role))
      .sort();
    expect(named).toEqual(readers);
    // Each reader's own policy asks for the key through Secrets Manager only.
    for (const [role, each] of roleStatements()) {
      if (partsReadBy(each).length === 0) continue;
      const decrypt = each.filter((statement) => actionsOf(statement).includes('kms:Decrypt'));
      expect({
        role,
        conditioned:
          decrypt.length > 0 && decrypt.every((s) => s.Condition?.StringEquals?.['kms:ViaService']),
      }).toEqual({ role, conditioned: true });
    }
  });
});

describe('retention', () => {
  it('keeps the secrets and the key when the stack goes, like the table, unless the removal policy is DESTROY', () => {
    const kept = [...Object.values(secretIds()), keyLogicalId()];
    expect(kept).toHaveLength(4);
    for (const id of kept)
      expect([resources[id]?.DeletionPolicy, resources[id]?.UpdateReplacePolicy]).toEqual([
        'Retain',
        'Retain',
      ]);
    const unprotected = synthesize({ removalPolicy: RemovalPolicy.DESTROY }).resources;
    for (const id of kept) expect(unprotected[id]?.DeletionPolicy).toBe('Delete');
  });

  it('keeps the key ring secret of existing deployments: same logical id, same generated placeholder', () => {
    // The id every deployment has had; another id, or another generator, would make a new ring (and a new hash key).
    expect(resources.ApiKeyRing50D4AA81?.Properties.GenerateSecretString).toEqual({});
    const [, custom] = ofType('Custom::ApiKeyRing')[0] as [string, Resource];
    expect(custom.Properties).toMatchObject({
      SecretId: { Ref: 'ApiKeyRing50D4AA81' },
      HashKeySecretId: { Ref: secretIds().hashKey },
      VapidKeysSecretId: { Ref: secretIds().vapidKeys },
    });
  });
});
function keyLogicalId(): string {
  return (ofType('AWS::KMS::Key')[0] as [string, Resource])[0];
}

describe('the key-age alarm and the schedules', () => {
  const ageAlarm = (all: Record<string, Resource>) =>
    Object.values(all).find(
      (resource) =>
        resource.Type === 'AWS::CloudWatch::Alarm' && resource.Properties.MetricName === 'ApiKeyAgeDays',
    );
  /** The rules that run the key ring's schedule function (other schedules of the stack are not its business). */
  const rules = (all: Record<string, Resource>) =>
    Object.values(all).filter(
      (resource) =>
        resource.Type === 'AWS::Events::Rule' &&
        JSON.stringify(resource.Properties.Targets).includes('"ApiKeyScheduleFunction'),
    );
  const scheduleFunction = () =>
    serviceFunctions().find(([id]) => id.startsWith('ApiKeyScheduleFunction'))?.[0] as string;

  it('alarms once the current API key is a year old, or apiKeyMaxAgeDays', () => {
    expect(ageAlarm(resources)?.Properties).toMatchObject({
      Namespace: 'MfaAuthorization',
      Dimensions: [{ Name: 'service', Value: 'mfa-authorization' }],
      Statistic: 'Maximum',
      Period: 86_400,
      Threshold: 365,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(ageAlarm(synthesize({ apiKeyMaxAgeDays: 90 }).resources)?.Properties.Threshold).toBe(90);
    expect(
      Object.values(resources).some(
        (resource) =>
          resource.Type === 'AWS::CloudWatch::Alarm' &&
          resource.Properties.MetricName === 'Errors' &&
          JSON.stringify(resource.Properties.Dimensions).includes(scheduleFunction()),
      ),
    ).toBe(true);
  });

  it('checks the key daily, and rotates on a schedule only when apiKeyRotationDays asks', () => {
    expect(
      rules(resources).map((rule) => [rule.Properties.ScheduleExpression, rule.Properties.Targets]),
    ).toEqual([
      [
        'rate(1 day)',
        [expect.objectContaining({ Arn: { 'Fn::GetAtt': [scheduleFunction(), 'Arn'] }, Input: '{}' })],
      ],
    ]);
    const rotating = rules(synthesize({ apiKeyRotationDays: 30 }).resources);
    expect(
      rotating.map((rule) => [
        rule.Properties.ScheduleExpression,
        (rule.Properties.Targets as { Input: string }[])[0]?.Input,
      ]),
    ).toEqual([
      ['rate(1 day)', '{}'],
      ['rate(30 days)', '{"rotate":true}'],
    ]);
    expect(() => synthesize({ apiKeyRotationDays: 1.5 })).toThrow(/whole number of days/);
  });

  it('stays cdk-nag clean with rotation and administrators set', () => {
    const { app } = synthesize(
      {
        apiKeyRotationDays: 90,
        apiKeyMaxAgeDays: 120,
        keyAdministrators: [`arn:aws:iam::${account}:role/Ops`],
      },
      true,
    );
    expect(() => app.synth()).not.toThrow();
  });
});
