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
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type CfnSecret, type ISecret, ResourcePolicy, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ExistingKeyPolicy } from '#infra/existing-key-policy';
import type { FunctionRoles } from '#infra/route-function';
import {
  defaultDeployerRoleArns,
  defaultKeyAdministratorArns,
} from '#shared/api-keys/key-custody-principals';
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
  /**
   * Who deploys: the principals (IAM ARNs, `*` allowed) through which CloudFormation creates the secrets, for which
   * Secrets Manager uses the key on their behalf. Default: the CDK bootstrap's execution role ({@link keyDeployers}).
   */
  readonly deployers?: readonly string[];
  /** Existing secrets to keep parts in instead of making them; their key must be `existingKey`. */
  readonly existingSecrets?: Partial<Record<KeyPart, ISecret>>;
  /** An existing KMS key to encrypt the secrets with instead of making one; its policy becomes the one made here. */
  readonly existingKey?: IKey;
}

/** The default administrators: people signing in through IAM Identity Center, or as IAM users. */
export function defaultKeyAdministrators(): string[] {
  return defaultKeyAdministratorArns(Aws.PARTITION, Aws.ACCOUNT_ID);
}

/**
 * Who deploys by default: CloudFormation, through the CDK bootstrap's execution role, creates the secrets and
 * re-encrypts the ring's existing secret under the key, for which Secrets Manager uses the key on its behalf. The
 * secrets' resource policies still refuse it their values.
 */
export function keyDeployers(): string[] {
  return defaultDeployerRoleArns(Aws.PARTITION, Aws.ACCOUNT_ID);
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
 *
 * Existing secrets and an existing key can stand in for those it would make (a stack deployed again around what a
 * destroyed one retained, or a second region's around its replicas): each secret still gets the resource policy
 * below, and the key the key policy, by a custom resource ({@link writeExistingKeyPolicy}).
 */
export class KeyCustody extends Construct {
  readonly key: IKey;
  readonly secrets: Readonly<Record<KeyPart, ISecret>>;
  /** The key's policy: the key's own when made here, or the one written onto an existing key. */
  private readonly keyPolicy: PolicyDocument;
  private readonly existingKey?: IKey;
  /** The secrets made here, which CloudFormation creates under the key once its policy lets it. */
  private readonly madeSecrets: Secret[] = [];
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
    const deployers = props.deployers?.length ? [...props.deployers] : keyDeployers();
    // The condition on every use of the key: only Secrets Manager, on behalf of the caller, may use it.
    const viaSecretsManager = { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` };
    const roleArns = (roles: IRole[]) => Lazy.list({ produce: () => roles.map((role) => role.roleArn) });
    const allReaders = () => [
      ...new Set([...keyParts.flatMap((part) => this.readers[part]), ...this.managers]),
    ];

    if (!props.existingKey && Object.values(props.existingSecrets ?? {}).some(Boolean)) {
      throw new Error(
        'Existing key secrets need the KMS key that encrypts them: give it too (existingKeyArn, secretsKey)',
      );
    }
    this.keyPolicy = new PolicyDocument({
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
          conditions: {
            StringEquals: viaSecretsManager,
            ArnLike: { 'aws:PrincipalArn': deployers },
          },
        }),
        new PolicyStatement({
          sid: 'AdministratorsManageTheSecrets',
          principals: [new AccountRootPrincipal()],
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: ['*'],
          conditions: { StringEquals: viaSecretsManager, ArnLike: { 'aws:PrincipalArn': administrators } },
        }),
      ],
    });
    this.existingKey = props.existingKey;
    this.key =
      props.existingKey ??
      new Key(this, 'Key', {
        description:
          'Encrypts the MFA authorization API key ring, hash key and VAPID keys (Secrets Manager only)',
        enableKeyRotation: true,
        removalPolicy,
        policy: this.keyPolicy,
      });

    const secret = (part: KeyPart, logicalId: string, description: string, placeholder: boolean) => {
      const onlyItsReaders = new PolicyStatement({
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
      });
      const existing = props.existingSecrets?.[part];
      if (existing) {
        // A retained secret lost its resource policy with the stack that made it.
        new ResourcePolicy(this, `${logicalId}Policy`, { secret: existing }).document.addStatements(
          onlyItsReaders,
        );
        return existing;
      }
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
      made.addToResourcePolicy(onlyItsReaders);
      this.madeSecrets.push(made);
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

  /**
   * Puts the key policy on an existing key at deploy, before CloudFormation creates any secret under it; nothing for
   * a key made here, whose policy is its own. Called once the roles it names exist.
   */
  writeExistingKeyPolicy(roles: FunctionRoles): void {
    if (!this.existingKey) return;
    const written = new ExistingKeyPolicy(this, 'KeyPolicy', {
      key: this.existingKey,
      policy: this.keyPolicy,
      roles,
    });
    for (const made of this.madeSecrets) made.node.addDependency(written);
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
