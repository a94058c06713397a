import type { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webAuthnModuleFile } from '#infra/function-bundling';
import { FunctionRole } from '#infra/function-role';
import type { KeyCustody } from '#infra/key-custody';
import type { Access } from '#infra/routes';
import { ServiceFunction } from '#infra/service-function';
import { type ItemKind, leadingKeyPattern, type TableGrant } from '#shared/store/item-kinds';
import { tableActionsOf } from '#shared/store/table-commands';

export interface RouteFunctionResources {
  readonly table: ITable;
  /** The audit trail's table (infra/audit-store.ts), and how many days its records are kept. */
  readonly audit: { readonly table: ITable; readonly retentionDays: number };
  /** The key ring, hash key and VAPID secrets, each granted only to the accesses that name it. */
  readonly keyCustody: KeyCustody;
  readonly webhookQueue: IQueue;
  readonly webhookDeadLetterQueue: IQueue;
  /** The worker's environment: where webhooks may go, and how it retries (see webhookDelivery in routes.ts). */
  readonly webhookDeliveryEnvironment: Readonly<Record<string, string>>;
  readonly pushQueue: IQueue;
  readonly pushDeadLetterQueue: IQueue;
  /** The push worker's environment: how it retries, and its VAPID contact (see pushDelivery in routes.ts). */
  readonly pushDeliveryEnvironment: Readonly<Record<string, string>>;
  /** The webhook address guard's policy, which push endpoints pass too. */
  readonly destinationPolicyEnvironment: Readonly<Record<string, string>>;
  /** The one log group of the service's functions. */
  readonly functionLogs: ILogGroup;
  /** CloudWatch metrics namespace of the service's own metrics. */
  readonly metricsNamespace: string;
}

export interface RouteFunctionProps {
  /** Module under functions/, without extension. */
  readonly handler: string;
  readonly access: Access;
  readonly resources: RouteFunctionResources;
  /** Its role: `FunctionRoles.roleFor(access)`, or one of its own for a function with grants beyond its access. */
  readonly role: FunctionRole;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  /** Concurrency set aside for this function alone, which also caps it. */
  readonly reservedConcurrency?: number;
}

/** The table actions the store uses, and no others (table-commands.ts), so no wildcard either. */
export const tableActions = { read: tableActionsOf('reads'), write: tableActionsOf('writes') } as const;

/**
 * The audit table's actions. Writers may only put, under keys with a random part they never see again, and read
 * nothing: they can neither find a record nor change or delete one. The reader may only Query. So no function can
 * rewrite the trail, whatever runs in it; the table's resource policy refuses updates and deletes to everyone.
 */
export const auditActions = { append: 'dynamodb:PutItem', read: 'dynamodb:Query' } as const;

/**
 * Memory from the bench: a signed request spends most of its CPU on RSA and the AWS SDK, and Lambda's CPU grows with
 * memory, so 1 024 MB (about 0.6 vCPU) roughly halves its duration for about the same cost per request; functions
 * without crypto need little.
 */
function memoryFor(access: Access): number {
  return access.apiKeys ? 1024 : 256;
}

/**
 * A function of the route table: the service's defaults (ServiceFunction), the variables its row's access needs, and
 * exactly the grants its row declares — derived from `access`, never written per function.
 */
export class RouteFunction extends ServiceFunction {
  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    const { access, resources } = props;
    super(scope, id, {
      handler: props.handler,
      role: props.role,
      logGroup: resources.functionLogs,
      memorySize: props.memorySize ?? memoryFor(access),
      ...(props.timeout ? { timeout: props.timeout } : {}),
      ...(props.reservedConcurrency ? { reservedConcurrency: props.reservedConcurrency } : {}),
      environment: {
        TABLE_NAME: resources.table.tableName,
        POWERTOOLS_METRICS_NAMESPACE: resources.metricsNamespace,
        ...(access.apiKeys ? { API_KEYS_SECRET_ID: resources.keyCustody.secrets.apiKeys.secretArn } : {}),
        ...(access.hashKey ? { HASH_KEY_SECRET_ID: resources.keyCustody.secrets.hashKey.secretArn } : {}),
        ...(access.vapidKeys
          ? { VAPID_KEYS_SECRET_ID: resources.keyCustody.secrets.vapidKeys.secretArn }
          : {}),
        ...(access.deadLetters
          ? {
              WEBHOOK_DLQ_URL: resources.webhookDeadLetterQueue.queueUrl,
              PUSH_DLQ_URL: resources.pushDeadLetterQueue.queueUrl,
            }
          : {}),
        ...(access.webhookQueue || access.webhookDelivery || access.deadLetters
          ? { WEBHOOK_QUEUE_URL: resources.webhookQueue.queueUrl }
          : {}),
        ...(access.webhookDelivery
          ? {
              WEBHOOK_DLQ_URL: resources.webhookDeadLetterQueue.queueUrl,
              ...resources.webhookDeliveryEnvironment,
            }
          : {}),
        ...(access.pushQueue || access.pushDelivery || access.deadLetters
          ? { PUSH_QUEUE_URL: resources.pushQueue.queueUrl }
          : {}),
        ...(access.pushDelivery
          ? { PUSH_DLQ_URL: resources.pushDeadLetterQueue.queueUrl, ...resources.pushDeliveryEnvironment }
          : {}),
        ...(access.pushEndpoints || access.pushDelivery ? resources.destinationPolicyEnvironment : {}),
        ...(access.webAuthn ? { WEBAUTHN_MODULE: `./${webAuthnModuleFile}` } : {}),
        ...(access.audit ? { AUDIT_TABLE_NAME: resources.audit.table.tableName } : {}),
        ...(access.audit === 'append' ? { AUDIT_RETENTION_DAYS: String(resources.audit.retentionDays) } : {}),
      },
    });
  }
}

/**
 * One IAM role per distinct grant set of the route table, holding exactly the grants that access declares, inline.
 * Functions that need the same things share a role: the same least privilege, and the stack stays far below
 * CloudFormation's 500 resources (about 30 roles for 70 functions, where a role and a policy each would be 140).
 */
export class FunctionRoles extends Construct {
  private readonly roles = new Map<string, FunctionRole>();

  constructor(
    scope: Construct,
    id: string,
    readonly resources: RouteFunctionResources,
  ) {
    super(scope, id);
  }

  roleFor(access: Access): FunctionRole {
    const name = accessName(access);
    const known = this.roles.get(name);
    if (known) return known;
    const role = this.newRole(name);
    grantAccess(role, access, this.resources);
    this.roles.set(name, role);
    return role;
  }

  /** A role with only the logging every function needs, for a function whose grants are its own. */
  newRole(name: string): FunctionRole {
    return new FunctionRole(this, name, this.resources.functionLogs);
  }
}

/** Each item kind's word in a role's name. */
const kindWords: Readonly<Record<ItemKind, string>> = {
  organization: 'Org',
  organizationList: 'Orgs',
  directory: 'Dir',
  service: 'Svc',
  device: 'Dev',
  userHead: 'User',
  linkCode: 'Link',
  linkAddress: 'LinkAddr',
  authRequest: 'Auth',
  v1AppKey: 'V1',
  serviceName: 'SvcName',
  sdkKey: 'Sdk',
  apiPublicKey: 'Api',
  jti: 'Jti',
  console: 'Console',
  health: 'Health',
};

/** The words of a table grant, the same for the same kinds in any order. */
function tableWords(grant: TableGrant | undefined): string[] {
  const words = (verb: string, kinds: readonly ItemKind[] = []) =>
    kinds.length ? [verb, ...[...new Set(kinds)].sort().map((kind) => kindWords[kind])] : [];
  return [...words('Reads', grant?.reads), ...words('Writes', grant?.writes)];
}

/**
 * `{ table: { reads: ['apiPublicKey'], writes: [] }, apiKeys: true }` → `ReadsApiApiKeys`; no access at all → `Logs`.
 * Accesses that grant the same share a name, so they share a role.
 */
function accessName(access: Access): string {
  const words = [
    ...tableWords(access.table),
    ...(access.apiKeys ? ['ApiKeys'] : []),
    ...(access.hashKey ? ['HashKey'] : []),
    ...(access.vapidKeys ? ['VapidKeys'] : []),
    ...(access.audit === 'append' ? ['AuditAppend'] : access.audit === 'read' ? ['AuditRead'] : []),
    ...(access.webhookQueue ? ['WebhookQueue'] : []),
    ...(access.webhookDelivery ? ['WebhookDelivery'] : []),
    ...(access.pushQueue ? ['PushQueue'] : []),
    ...(access.pushDelivery ? ['PushDelivery'] : []),
    ...(access.deadLetters ? ['DeadLetters'] : []),
  ];
  return words.length ? words.join('') : 'Logs';
}

/** The grants an `Access` declares, on exactly the resources it names. */
export function grantAccess(role: FunctionRole, access: Access, resources: RouteFunctionResources): void {
  for (const mode of ['reads', 'writes'] as const) {
    const kinds = [...new Set(access.table?.[mode] ?? [])].sort();
    if (kinds.length === 0) continue;
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...tableActions[mode === 'reads' ? 'read' : 'write']],
        resources: [resources.table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': kinds.map(leadingKeyPattern) },
          // ForAllValues holds for a request without the key at all; every action granted here has one, and must.
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
  }
  if (access.audit) {
    // PutItem alone, or Query alone (see auditActions); never Get, Update, Delete or batch writes.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [auditActions[access.audit]],
        resources: [resources.audit.table.tableArn],
      }),
    );
  }
  if (access.apiKeys) resources.keyCustody.grantRead('apiKeys', role);
  if (access.hashKey) resources.keyCustody.grantRead('hashKey', role);
  if (access.vapidKeys) resources.keyCustody.grantRead('vapidKeys', role);
  if (access.webhookQueue || access.webhookDelivery) resources.webhookQueue.grantSendMessages(role);
  if (access.webhookDelivery) resources.webhookDeadLetterQueue.grantSendMessages(role);
  if (access.pushQueue || access.pushDelivery) resources.pushQueue.grantSendMessages(role);
  if (access.pushDelivery) resources.pushDeadLetterQueue.grantSendMessages(role);
  if (access.deadLetters) {
    // Reads the dead letters, hides them again and deletes the redriven: on the two DLQs only, after each is resent.
    resources.webhookDeadLetterQueue.grantConsumeMessages(role);
    resources.pushDeadLetterQueue.grantConsumeMessages(role);
    resources.webhookQueue.grantSendMessages(role);
    resources.pushQueue.grantSendMessages(role);
  }
}
