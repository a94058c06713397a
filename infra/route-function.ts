import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { KeyCustody } from '#infra/key-custody';
import { type Access, httpRoutes, webAppRoute } from '#infra/routes';
import { type ItemKind, leadingKeyPattern, type TableGrant } from '#shared/store/item-kinds';
import { tableActionsOf } from '#shared/store/table-commands';

export interface RouteFunctionResources {
  readonly table: ITableV2;
  /** The audit trail's table (infra/audit-store.ts), and how many days its records are kept. */
  readonly audit: { readonly table: ITableV2; readonly retentionDays: number };
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
  readonly logRetention: RetentionDays;
  /** CloudWatch metrics namespace of the service's own metrics. */
  readonly metricsNamespace: string;
}

export interface RouteFunctionProps {
  /** Module under functions/, without extension. */
  readonly handler: string;
  readonly access: Access;
  readonly resources: RouteFunctionResources;
  /** Its role: `FunctionRoles.roleFor(access)`, or one of its own for a function with grants beyond its access. */
  readonly role: Role;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  /** Concurrency set aside for this function alone, which also caps it. */
  readonly reservedConcurrency?: number;
}

/** The service name of every function's logs, traces and metrics (the `service` dimension). */
export const serviceName = 'mfa-authorization';

/** The Lambda runtime every function runs on: the newest Node LTS Lambda offers. */
export const functionRuntime = Runtime.NODEJS_24_X;

/**
 * This package's root, where the functions' sources, esbuild and the lock file are: bundling runs there whatever the
 * working directory of the app that builds the service.
 */
const packageRoot = fileURLToPath(new URL('..', import.meta.url));

/** The AWS SDK's credential chain, and what the handler bundles take in its place (shared/aws/lambda-credentials.ts). */
export const credentialChainPackage = '@aws-sdk/credential-provider-node';
export const lambdaCredentials = './shared/aws/lambda-credentials.ts';

/** How every handler is bundled; the bundle test and the bench build them so. */
export const handlerBundling = {
  format: OutputFormat.ESM,
  target: 'node22',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  // The AWS SDK goes into the bundle rather than coming from the runtime's copy: one minified, tree-shaken file loads
  // in half the time of the SDK's hundreds of modules (the bench's cold start: about 90 ms instead of 150), and the
  // functions run the SDK versions package.json pins and the tests ran, not whatever the runtime ships that day.
  externalModules: [] as string[],
  // CommonJS dependencies inside an ESM bundle still call require().
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  // Lambda gives a function its credentials in the environment: the rest of the SDK's chain stays out of the bundle.
  esbuildArgs: { [`--alias:${credentialChainPackage}`]: lambdaCredentials },
} satisfies BundlingOptions;

/** What an afterBundling hook runs, given the project's directory and the bundle's. */
type BesideBundle = (inputDir: string, outputDir: string) => string[];

/** A library as a file of its own beside the bundle, built by the local esbuild as the bundle itself is. */
function libraryFile(entry: string, file: string): BesideBundle {
  return (inputDir, outputDir) => [
    `cd "${inputDir}" && node_modules/.bin/esbuild ${entry} --bundle --platform=node --format=esm --target=${handlerBundling.target} --minify --log-level=warning "--banner:js=${handlerBundling.banner}" --outfile="${outputDir}/${file}"`,
  ];
}

/** The bundling of a function that carries files beside its bundle. */
function withFilesBeside(...files: BesideBundle[]) {
  return {
    ...handlerBundling,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        files.flatMap((file) => file(inputDir, outputDir)),
    },
  } satisfies BundlingOptions;
}

/** The file name of the X-Ray tracer beside every bundle, as `TRACER_MODULE` gives it to the function. */
export const tracerModuleFile = 'tracing.mjs';

/**
 * Every function carries the X-Ray tracer (about 125 KB of CommonJS that does not tree-shake) as a file of its own
 * beside its bundle, which it loads on its first invocation when traced (`TRACER_MODULE`, shared/tracing.ts): the
 * bundles stay within their budget, and the local runtime, the tests and the bench never load it.
 */
const tracerFile = libraryFile('shared/tracing-library.ts', tracerModuleFile);

/**
 * The web authenticator's function also carries the app's build, beside its bundle, where it reads it from: built
 * first if its sources changed (`--if-stale`), so that `cdk synth` and `cdk deploy` never ship a stale or missing app.
 */
const webAppFiles: BesideBundle = (inputDir, outputDir) => [
  `cd "${inputDir}" && node_modules/.bin/tsx web/authenticator/build.ts --if-stale`,
  `cp -R "${inputDir}/.tmp/web/authenticator" "${outputDir}/authenticator"`,
];

/** The file name of the WebAuthn library beside a bundle, as `WEBAUTHN_MODULE` gives it to the function. */
export const webAuthnModuleFile = 'webauthn.mjs';

/**
 * Functions that verify passkeys carry the WebAuthn library (about 400 KB) bundled as a file of its own beside theirs,
 * which they load on first use (`WEBAUTHN_MODULE`): an answer from a device without a passkey never pays for it.
 */
const webAuthnFile = libraryFile('shared/webauthn/library.ts', webAuthnModuleFile);

const tracedBundling = withFilesBeside(tracerFile);
const webAppBundling = withFilesBeside(tracerFile, webAppFiles);
const webAuthnBundling = withFilesBeside(tracerFile, webAuthnFile);

/**
 * The bundling of one function under functions/: the same for all of them, each with its own AWS SDK inside the
 * 500 KB budget, updating a directory's PKCS#12 parser included, and the tracer beside it; the web authenticator's
 * with the app's files too, and those that verify passkeys with the WebAuthn library.
 */
export function bundlingFor(handler: string): typeof handlerBundling & Pick<BundlingOptions, 'commandHooks'> {
  if (handler === webAppRoute.handler) return webAppBundling;
  return httpRoutes.some((route) => route.handler === handler && route.access.webAuthn)
    ? webAuthnBundling
    : tracedBundling;
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
 * A function of the route table with the project's defaults: a pinned Node runtime on arm64, a minified ESM bundle
 * with source maps made by the local esbuild, JSON logs in a log group of its own, and exactly the grants its row
 * declares — derived here from `access`, never written per function.
 */
export class RouteFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    const { access, resources } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: resources.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: join(packageRoot, 'functions', `${props.handler}.ts`),
      projectRoot: packageRoot,
      depsLockFilePath: join(packageRoot, 'package-lock.json'),
      handler: 'handler',
      runtime: functionRuntime,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? memoryFor(access),
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      // X-Ray: the handler's segment and its AWS SDK calls, by the tracer beside the bundle (shared/tracing.ts).
      tracing: Tracing.ACTIVE,
      environment: {
        TABLE_NAME: resources.table.tableName,
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: resources.metricsNamespace,
        NODE_OPTIONS: '--enable-source-maps',
        ...(access.apiKeys ? { API_KEYS_SECRET_ID: resources.keyCustody.secrets.apiKeys.secretArn } : {}),
        ...(access.hashKey ? { HASH_KEY_SECRET_ID: resources.keyCustody.secrets.hashKey.secretArn } : {}),
        ...(access.vapidKeys
          ? { VAPID_KEYS_SECRET_ID: resources.keyCustody.secrets.vapidKeys.secretArn }
          : {}),
        ...(access.webhookQueue || access.webhookDelivery
          ? { WEBHOOK_QUEUE_URL: resources.webhookQueue.queueUrl }
          : {}),
        ...(access.webhookDelivery
          ? {
              WEBHOOK_DLQ_URL: resources.webhookDeadLetterQueue.queueUrl,
              ...resources.webhookDeliveryEnvironment,
            }
          : {}),
        ...(access.pushQueue || access.pushDelivery ? { PUSH_QUEUE_URL: resources.pushQueue.queueUrl } : {}),
        ...(access.pushDelivery
          ? { PUSH_DLQ_URL: resources.pushDeadLetterQueue.queueUrl, ...resources.pushDeliveryEnvironment }
          : {}),
        ...(access.pushEndpoints || access.pushDelivery ? resources.destinationPolicyEnvironment : {}),
        TRACER_MODULE: `./${tracerModuleFile}`,
        ...(access.webAuthn ? { WEBAUTHN_MODULE: `./${webAuthnModuleFile}` } : {}),
        ...(access.audit ? { AUDIT_TABLE_NAME: resources.audit.table.tableName } : {}),
        ...(access.audit === 'append' ? { AUDIT_RETENTION_DAYS: String(resources.audit.retentionDays) } : {}),
      },
      bundling: bundlingFor(props.handler),
      role: props.role,
    });
  }
}

/**
 * One IAM role per distinct grant set of the route table, holding exactly the grants that access declares. Functions
 * that need the same things share a role: the same least privilege, and the stack stays below CloudFormation's 500
 * resources (about 30 roles with their policies for 70 functions, where a role and a policy each would be 140).
 */
export class FunctionRoles extends Construct {
  private readonly roles = new Map<string, Role>();

  constructor(
    scope: Construct,
    id: string,
    private readonly resources: RouteFunctionResources,
  ) {
    super(scope, id);
  }

  roleFor(access: Access): Role {
    const name = accessName(access);
    const known = this.roles.get(name);
    if (known) return known;
    const role = this.newRole(name);
    grantAccess(role, access, this.resources);
    this.roles.set(name, role);
    return role;
  }

  /** A role with only the logging every function needs, for a function whose grants are its own. */
  newRole(name: string): Role {
    return new Role(this, name, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
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
  authRequest: 'Auth',
  v1AppKey: 'V1',
  serviceName: 'SvcName',
  sdkKey: 'Sdk',
  apiPublicKey: 'Api',
  jti: 'Jti',
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
  ];
  return words.length ? words.join('') : 'Logs';
}

/** The grants an `Access` declares, on exactly the resources it names. */
export function grantAccess(role: Role, access: Access, resources: RouteFunctionResources): void {
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
}
