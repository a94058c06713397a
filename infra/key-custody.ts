import { Aws, Duration, Lazy, type RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  AccountRootPrincipal,
  AnyPrincipal,
  Effect,
  type IRole,
  Policy,
  PolicyDocument,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type CfnSecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { keySecretPlaceholder } from '#shared/api-keys/key-ring-storage';

/** The parts of the deployment's keys, each a secret of its own. */
export type KeyPart = 'apiKeys' | 'hashKey' | 'vapidKeys';
export const keyParts: readonly KeyPart[] = ['apiKeys', 'hashKey', 'vapidKeys'];

export interface KeyCustodyProps {
  /** What becomes of the secrets and their KMS key when the stack goes: RETAIN keeps them, like the table. */
  readonly removalPolicy: RemovalPolicy;
  /**
   * The principals besides the stack's own roles that may read the secrets and use the key through Secrets Manager:
   * IAM ARNs, `*` allowed. Default: the account's IAM Identity Center roles and IAM users, the people who run
   * `admin api-key`; never another workload's role.
   */
  readonly administrators?: readonly string[];
}

/** The default administrators: people signing in through IAM Identity Center, or as IAM users. */
export function defaultKeyAdministrators(): string[] {
  return [
    `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/aws-reserved/sso.amazonaws.com/*`,
    `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:user/*`,
  ];
}

/**
 * Who deploys: CloudFormation, through the CDK bootstrap's execution role, creates the secrets and re-encrypts the
 * ring's existing secret under the key, for which Secrets Manager uses the key on its behalf. The secrets' resource
 * policies still refuse it their values.
 */
export function keyDeployers(): string[] {
  return [`arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-*-cfn-exec-role-*`];
}

/**
 * Custody of the deployment's keys: the API's RSA key ring, the hash key and the VAPID key pair in three secrets,
 * encrypted with a customer-managed KMS key that rotates yearly. The key's policy lets the account administer it but
 * use it only through Secrets Manager, and only for the roles granted a part (and the administrators); each secret's
 * resource policy refuses its value to every other principal, whatever their IAM policies say. Unless the removal
 * policy is DESTROY the secrets and the key outlive the stack, as the table does: the table's user hashes and sealed
 * values need them.
 *
 * The secrets are children of this construct's parent, not of this construct: the key ring's secret keeps the logical
 * id it had before the split, so an existing deployment keeps its ring (and, through it, its hash key).
 */
export class KeyCustody extends Construct {
  readonly key: Key;
  readonly secrets: Readonly<Record<KeyPart, Secret>>;
  private readonly readers: Record<KeyPart, IRole[]> = { apiKeys: [], hashKey: [], vapidKeys: [] };
  private readonly managers: IRole[] = [];
  /**
   * The grants on the secrets and the key, one policy per part attached to every role that reads it, and one for the
   * managers: kept out of the roles' own policies, since the key's policy names the roles, the grants name the secrets
   * and the secrets name the key, a cycle CloudFormation refuses when the grants are written in the roles themselves.
   */
  private readonly readPolicies: Record<KeyPart, Policy>;
  private readonly managePolicy: Policy;

  constructor(scope: Construct, id: string, props: KeyCustodyProps) {
    super(scope, id);
    const { removalPolicy } = props;
    const administrators = props.administrators?.length
      ? [...props.administrators]
      : defaultKeyAdministrators();
    // The condition on every use of the key: only Secrets Manager, on behalf of the caller, may use it.
    const viaSecretsManager = { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` };
    const roleArns = (roles: IRole[]) => Lazy.list({ produce: () => roles.map((role) => role.roleArn) });
    const allReaders = () => [
      ...new Set([...keyParts.flatMap((part) => this.readers[part]), ...this.managers]),
    ];

    this.key = new Key(this, 'Key', {
      description:
        'Encrypts the MFA authorization API key ring, hash key and VAPID keys (Secrets Manager only)',
      enableKeyRotation: true,
      removalPolicy,
      policy: new PolicyDocument({
        statements: [
          // Administration without use: no statement grants the account kms:Decrypt outside the ones below.
          new PolicyStatement({
            sid: 'AccountAdministersTheKey',
            principals: [new AccountRootPrincipal()],
            actions: [
              'kms:Create*',
              'kms:Describe*',
              'kms:Enable*',
              'kms:List*',
              'kms:Put*',
              'kms:Update*',
              'kms:Revoke*',
              'kms:Disable*',
              'kms:Get*',
              'kms:Delete*',
              'kms:TagResource',
              'kms:UntagResource',
              'kms:ScheduleKeyDeletion',
              'kms:CancelKeyDeletion',
              'kms:RotateKeyOnDemand',
            ],
            resources: ['*'],
          }),
          new PolicyStatement({
            sid: 'RolesReadTheirSecrets',
            principals: [new AccountRootPrincipal()],
            actions: ['kms:Decrypt'],
            resources: ['*'],
            conditions: {
              StringEquals: viaSecretsManager,
              ArnEquals: {
                'aws:PrincipalArn': Lazy.list({ produce: () => allReaders().map((r) => r.roleArn) }),
              },
            },
          }),
          new PolicyStatement({
            sid: 'KeyRingFunctionWritesTheSecrets',
            principals: [new AccountRootPrincipal()],
            actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
            resources: ['*'],
            conditions: {
              StringEquals: viaSecretsManager,
              ArnEquals: { 'aws:PrincipalArn': roleArns(this.managers) },
            },
          }),
          new PolicyStatement({
            sid: 'DeployersWriteTheSecrets',
            principals: [new AccountRootPrincipal()],
            actions: ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'],
            resources: ['*'],
            conditions: { StringEquals: viaSecretsManager, ArnLike: { 'aws:PrincipalArn': keyDeployers() } },
          }),
          new PolicyStatement({
            sid: 'AdministratorsManageTheSecrets',
            principals: [new AccountRootPrincipal()],
            actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
            resources: ['*'],
            conditions: { StringEquals: viaSecretsManager, ArnLike: { 'aws:PrincipalArn': administrators } },
          }),
        ],
      }),
    });

    const secret = (part: KeyPart, logicalId: string, description: string, placeholder: boolean) => {
      const made = new Secret(scope, logicalId, {
        description,
        removalPolicy,
        // The key ring's secret keeps the random placeholder it was created with: changing how CloudFormation
        // generates it would make CloudFormation generate a new value over the ring of an existing deployment.
        ...(placeholder ? { secretStringValue: SecretValue.unsafePlainText(keySecretPlaceholder) } : {}),
      });
      // The key is set on the resource rather than given to Secret, which would also let every principal of the
      // account use it through Secrets Manager: the key policy above names who may.
      (made.node.defaultChild as CfnSecret).kmsKeyId = this.key.keyArn;
      made.addToResourcePolicy(
        new PolicyStatement({
          sid: 'OnlyItsReaders',
          effect: Effect.DENY,
          principals: [new AnyPrincipal()],
          actions: ['secretsmanager:GetSecretValue'],
          resources: ['*'],
          conditions: {
            ArnNotLike: {
              'aws:PrincipalArn': Lazy.list({
                produce: () => [
                  ...[...this.readers[part], ...this.managers].map((role) => role.roleArn),
                  ...administrators,
                ],
              }),
            },
          },
        }),
      );
      return made;
    };
    this.secrets = {
      apiKeys: secret(
        'apiKeys',
        'ApiKeyRing',
        'Private RSA key ring of the MFA authorization API (JSON; made at deploy, rotated with `admin api-key`)',
        false,
      ),
      hashKey: secret(
        'hashKey',
        'HashKey',
        'Hash and sealing key of the MFA authorization API: user hashes, sealed TOTP secrets and push credentials',
        true,
      ),
      vapidKeys: secret(
        'vapidKeys',
        'VapidKeys',
        'VAPID key pair that signs the Web Pushes of the MFA API',
        true,
      ),
    };

    const useTheKey = (actions: string[]) =>
      new PolicyStatement({
        actions,
        resources: [this.key.keyArn],
        conditions: { StringEquals: viaSecretsManager },
      });
    const readPolicy = (part: KeyPart, id: string) =>
      new Policy(this, id, {
        statements: [
          new PolicyStatement({
            actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
            resources: [this.secrets[part].secretArn],
          }),
          useTheKey(['kms:Decrypt']),
        ],
      });
    this.readPolicies = {
      apiKeys: readPolicy('apiKeys', 'ReadsApiKeys'),
      hashKey: readPolicy('hashKey', 'ReadsHashKey'),
      vapidKeys: readPolicy('vapidKeys', 'ReadsVapidKeys'),
    };
    // Written out rather than with grantWrite, whose key grant adds wildcard actions (kms:ReEncrypt*,
    // kms:GenerateDataKey*) that PutSecretValue does not need.
    this.managePolicy = new Policy(this, 'ManagesKeys', {
      statements: [
        new PolicyStatement({
          actions: [
            'secretsmanager:GetSecretValue',
            'secretsmanager:DescribeSecret',
            'secretsmanager:PutSecretValue',
          ],
          resources: keyParts.map((part) => this.secrets[part].secretArn),
        }),
        useTheKey(['kms:Decrypt', 'kms:GenerateDataKey']),
      ],
    });
  }

  /** Lets a role read one part: its secret, and the key through Secrets Manager. */
  grantRead(part: KeyPart, role: IRole): void {
    if (this.readers[part].includes(role)) return;
    this.readers[part].push(role);
    this.readPolicies[part].attachToRole(role);
  }

  /** Lets a role read and write every part: the key ring function and its schedule. */
  grantManage(role: IRole): void {
    if (this.managers.includes(role)) return;
    this.managers.push(role);
    this.managePolicy.attachToRole(role);
  }

  /**
   * The daily run of the key ring's schedule function (key age, finishing a split) and, with `rotationDays`, a
   * rotation every that many days.
   */
  schedule(scheduleFunction: IFunction, rotationDays: number | undefined): Rule[] {
    if (rotationDays !== undefined && !(Number.isInteger(rotationDays) && rotationDays >= 1))
      throw new Error(`apiKeyRotationDays must be a whole number of days, not ${rotationDays}`);
    const rules = [
      new Rule(this, 'DailyCheck', {
        description: 'Publishes the age of the current API key (ApiKeyAgeDays)',
        schedule: Schedule.rate(Duration.days(1)),
        targets: [new LambdaFunction(scheduleFunction, { event: RuleTargetInput.fromObject({}) })],
      }),
    ];
    if (rotationDays !== undefined) {
      rules.push(
        new Rule(this, 'Rotation', {
          description: `Rotates the API key every ${rotationDays} days, as \`admin api-key rotate\` does`,
          schedule: Schedule.rate(Duration.days(rotationDays)),
          targets: [
            new LambdaFunction(scheduleFunction, { event: RuleTargetInput.fromObject({ rotate: true }) }),
          ],
        }),
      );
    }
    return rules;
  }
}
