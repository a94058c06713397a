import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { stackFromContext } from '#infra/app-props';
import { AuthorizationServiceStack } from '#infra/stack';
import { roleStatements } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DependsOn?: string[];
}

const account = '123456789012';
const region = 'eu-west-1';
const existing = {
  tableName: 'MfaAuthorizationService-TableCD117FA1-1A2B3C4D5E6F',
  auditTableName: 'MfaAuthorizationService-AuditTable9E5D0B1D-6F5E4D3C2B1A',
  apiKeys: `arn:aws:secretsmanager:${region}:${account}:secret:ApiKeyRing50D4AA81-AbC123`,
  hashKey: `arn:aws:secretsmanager:${region}:${account}:secret:HashKeyC0DE1234-DeF456`,
  vapidKeys: `arn:aws:secretsmanager:${region}:${account}:secret:VapidKeys8E2F1A0B-GhI789`,
  key: `arn:aws:kms:${region}:${account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
};

/** The app's stack as `cdk synth -c …` makes it in eu-west-1, without the edge (it adopts nothing). */
function synthesize(context: Record<string, string>): Template {
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [], edge: 'none', ...context },
    builtinCloudFormationValidation: false,
  });
  const { props } = stackFromContext(app);
  return Template.fromStack(
    new AuthorizationServiceStack(app, 'Test', { ...props, env: { account, region } }),
  );
}

const resourcesOf = (template: Template) => template.toJSON().Resources as Record<string, Resource>;
const ofType = (template: Template, type: string) =>
  Object.entries(resourcesOf(template)).filter(([, resource]) => resource.Type === type);
const serviceFunctions = (template: Template) =>
  ofType(template, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Handler === 'index.handler');
const environmentOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
const roleOf = (fn: Resource) => (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
/** A table's ARN in the template's region and account, as CDK writes an imported table's. */
const tableArn = (name: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:${region}:${account}:table/${name}`]],
});
const keyPolicyStatements = (policy: unknown) =>
  (policy as { Statement: { Sid?: string; Condition?: Record<string, Record<string, unknown>> }[] })
    .Statement;

describe('-c existingTableName', () => {
  const template = synthesize({ existingTableName: existing.tableName });

  it('makes no table, points every function at the existing one and grants on it, its index too', () => {
    const tables = ofType(template, 'AWS::DynamoDB::GlobalTable').map(([id]) => id);
    expect(tables).toEqual([expect.stringMatching(/^AuditTable/)]);
    for (const [, fn] of serviceFunctions(template)) {
      expect(environmentOf(fn).TABLE_NAME).toBe(existing.tableName);
    }
    const resources = JSON.stringify([...roleStatements(resourcesOf(template)).values()].flat());
    expect(resources).toContain(JSON.stringify(tableArn(existing.tableName)));
    expect(resources).toContain(`:table/${existing.tableName}/index/announcements`);
    template.hasOutput('TableName', { Value: existing.tableName });
  });
});

describe('-c existingAuditTableName', () => {
  const template = synthesize({ existingAuditTableName: existing.auditTableName });

  it('makes no audit table, and the functions append to and read the existing one', () => {
    const tables = ofType(template, 'AWS::DynamoDB::GlobalTable').map(([id]) => id);
    expect(tables).toEqual([expect.stringMatching(/^Table/)]);
    const appending = serviceFunctions(template).filter(
      ([, fn]) => environmentOf(fn).AUDIT_TABLE_NAME === existing.auditTableName,
    );
    expect(appending.length).toBeGreaterThan(50);
    const auditStatements = [...roleStatements(resourcesOf(template)).values()]
      .flat()
      .filter(
        (statement) =>
          JSON.stringify(statement.Resource) === JSON.stringify(tableArn(existing.auditTableName)),
      );
    expect(new Set(auditStatements.flatMap((statement) => [statement.Action].flat()))).toEqual(
      new Set(['dynamodb:PutItem', 'dynamodb:Query']),
    );
    template.hasOutput('AuditTableName', { Value: existing.auditTableName });
  });
});

describe.each([
  ['existingApiKeySecretArn', 'apiKeys', 'ApiKeyRing', 'API_KEYS_SECRET_ID', 'SecretId'],
  ['existingHashKeySecretArn', 'hashKey', 'HashKey', 'HASH_KEY_SECRET_ID', 'HashKeySecretId'],
  ['existingVapidKeysSecretArn', 'vapidKeys', 'VapidKeys', 'VAPID_KEYS_SECRET_ID', 'VapidKeysSecretId'],
] as const)('-c %s', (option, part, logicalId, variable, keyRingProperty) => {
  const template = synthesize({ [option]: existing[part], existingKeyArn: existing.key });

  it('makes no secret for that part, and gives the existing one to its readers, the key ring and its policy', () => {
    const secrets = ofType(template, 'AWS::SecretsManager::Secret').map(([id]) => id);
    expect(secrets.filter((id) => id.startsWith(logicalId))).toEqual([]);
    expect(secrets).toHaveLength(2);
    const readers = serviceFunctions(template).filter(([, fn]) => environmentOf(fn)[variable] !== undefined);
    expect(readers.length).toBeGreaterThan(0);
    for (const [, fn] of readers) expect(environmentOf(fn)[variable]).toBe(existing[part]);
    const [[, keyRing] = []] = ofType(template, 'Custom::ApiKeyRing');
    expect(keyRing?.Properties[keyRingProperty]).toBe(existing[part]);
    // A retained secret lost its resource policy with the stack that made it: the stack gives it one again.
    const [[, policy] = []] = ofType(template, 'AWS::SecretsManager::ResourcePolicy').filter(
      ([, resource]) => resource.Properties.SecretId === existing[part],
    );
    expect(policy?.Properties.ResourcePolicy).toMatchObject({
      Statement: [
        expect.objectContaining({
          Sid: 'OnlyItsReaders',
          Effect: 'Deny',
          Action: 'secretsmanager:GetSecretValue',
        }),
      ],
    });
    const granted = [...roleStatements(resourcesOf(template)).values()]
      .flat()
      .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'));
    expect(JSON.stringify(granted)).toContain(`"${existing[part]}"`);
  });
});

describe('-c existingKeyArn', () => {
  const template = synthesize({ existingKeyArn: existing.key });

  it('makes no key, encrypts the secrets it makes with the existing one once its policy is written on it', () => {
    expect(ofType(template, 'AWS::KMS::Key')).toEqual([]);
    const [[policyId, keyPolicy] = []] = ofType(template, 'Custom::KeyPolicy');
    expect(keyPolicy?.Properties.KeyId).toBe(existing.key);
    const secrets = ofType(template, 'AWS::SecretsManager::Secret');
    expect(secrets).toHaveLength(3);
    for (const [, secret] of secrets) {
      expect(secret.Properties.KmsKeyId).toBe(existing.key);
      expect(secret.DependsOn).toEqual(expect.arrayContaining([policyId]));
    }
  });

  it("writes the policy a key of the stack's own has, naming this deployment's roles and its deployers", () => {
    const statements = keyPolicyStatements(ofType(template, 'Custom::KeyPolicy')[0]?.[1].Properties.Policy);
    expect(statements.map((statement) => statement.Sid)).toEqual([
      'AccountAdministersTheKey',
      'RolesReadTheirSecrets',
      'KeyRingFunctionWritesTheSecrets',
      'DeployersWriteTheSecrets',
      'AdministratorsManageTheSecrets',
    ]);
    const readers = statements.find((statement) => statement.Sid === 'RolesReadTheirSecrets');
    const named = [readers?.Condition?.ArnEquals?.['aws:PrincipalArn']].flat();
    expect(named.length).toBeGreaterThan(10);
    for (const arn of named) expect(arn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Roles/), 'Arn'] });
  });

  it('lets the function that writes it put that key’s policy and nothing more', () => {
    const [writer] = serviceFunctions(template).filter(([id]) =>
      id.startsWith('KeyCustodyKeyPolicyFunction'),
    );
    expect(writer).toBeDefined();
    const statements =
      roleStatements(resourcesOf(template)).get(roleOf((writer as [string, Resource])[1])) ?? [];
    const keyStatements = statements.filter((statement) =>
      [statement.Action].flat().some((action) => String(action).startsWith('kms:')),
    );
    expect(keyStatements).toEqual([
      expect.objectContaining({ Action: 'kms:PutKeyPolicy', Resource: existing.key }),
    ]);
  });

  it('refuses existing secrets without the key that encrypts them, and ARNs of another kind or region', () => {
    expect(() => synthesize({ existingApiKeySecretArn: existing.apiKeys })).toThrow(
      /need the KMS key that encrypts them/,
    );
    expect(() => synthesize({ existingKeyArn: existing.key.replace(region, 'us-west-2') })).toThrow(
      /existingKeyArn is in region us-west-2, the stack in eu-west-1/,
    );
    expect(() =>
      synthesize({
        existingHashKeySecretArn: existing.hashKey.replace(/-DeF456$/, ''),
        existingKeyArn: existing.key,
      }),
    ).toThrow(/existingHashKeySecretArn must be the ARN of a secret/);
  });
});

describe('-c deployerRoles', () => {
  const deployersOf = (template: Template) => {
    const [[, key] = []] = ofType(template, 'AWS::KMS::Key');
    const statement = keyPolicyStatements(key?.Properties.KeyPolicy).find(
      (each) => each.Sid === 'DeployersWriteTheSecrets',
    );
    return [statement?.Condition?.ArnLike?.['aws:PrincipalArn']].flat();
  };

  it("lets CloudFormation use the key through the roles it names, and through the CDK bootstrap's by default", () => {
    const pipeline = `arn:aws:iam::${account}:role/pipeline-deploy-*`;
    const release = `arn:aws:iam::${account}:role/ReleaseRole`;
    expect(deployersOf(synthesize({ deployerRoles: `${pipeline}, ${release}` }))).toEqual([
      pipeline,
      release,
    ]);
    const byDefault = deployersOf(synthesize({}));
    expect(byDefault).toHaveLength(1);
    expect(JSON.stringify(byDefault)).toContain(':role/cdk-*-cfn-exec-role-*"');
  });
});

describe('-c tableReplicaRegions', () => {
  it('puts a replica of the table and of the audit table, with its append-only policy, in each region', () => {
    const template = synthesize({ tableReplicaRegions: 'eu-central-1' });
    const tables = ofType(template, 'AWS::DynamoDB::GlobalTable');
    expect(tables).toHaveLength(2);
    for (const [, table] of tables) {
      const replicas = table.Properties.Replicas as { Region: string }[];
      expect(replicas.map((replica) => replica.Region).sort()).toEqual(['eu-central-1', 'eu-west-1']);
    }
    const [[, audit] = []] = tables.filter(([id]) => id.startsWith('AuditTable'));
    const policies = (audit?.Properties.Replicas as { ResourcePolicy?: unknown }[]).map((replica) =>
      JSON.stringify(replica.ResourcePolicy),
    );
    expect(policies).toEqual([expect.stringContaining('AppendOnly'), expect.stringContaining('AppendOnly')]);
  });
});
