import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type Access, httpRoutes, webAppRoute } from '#infra/routes';

export interface RouteFunctionResources {
  readonly table: ITableV2;
  readonly apiKeys: ISecret;
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
}

/** The Lambda runtime every function runs on: the newest Node LTS Lambda offers. */
export const functionRuntime = Runtime.NODEJS_24_X;

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
} satisfies BundlingOptions;

/**
 * The web authenticator's function also carries the app's build, beside its bundle, where it reads it from: built
 * first if its sources changed (`--if-stale`), so that `cdk synth` and `cdk deploy` never ship a stale or missing app.
 */
const webAppBundling = {
  ...handlerBundling,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => [
      `cd "${inputDir}" && node_modules/.bin/tsx web/authenticator/build.ts --if-stale`,
      `cp -R "${inputDir}/.tmp/web/authenticator" "${outputDir}/authenticator"`,
    ],
  },
} satisfies BundlingOptions;

/**
 * Functions that verify passkeys carry the WebAuthn library (about 400 KB) bundled as a file of its own beside theirs,
 * which they load on first use (`WEBAUTHN_MODULE`): an answer from a device without a passkey never pays for it.
 */
const webAuthnBundling = {
  ...handlerBundling,
  commandHooks: {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => [
      `cd "${inputDir}" && node_modules/.bin/esbuild shared/webauthn/library.ts --bundle --platform=node --format=esm --target=${handlerBundling.target} --minify --log-level=warning "--banner:js=${handlerBundling.banner}" --outfile="${outputDir}/${webAuthnModuleFile}"`,
    ],
  },
} satisfies BundlingOptions;

/** The file name of the WebAuthn library beside a bundle, as `WEBAUTHN_MODULE` gives it to the function. */
export const webAuthnModuleFile = 'webauthn.mjs';

/**
 * The bundling of one function under functions/: the same for all of them, each with its own AWS SDK inside the
 * 500 KB budget, updating a directory's PKCS#12 parser included; the web authenticator's with the app's files, and
 * those that verify passkeys with the WebAuthn library beside them.
 */
export function bundlingFor(handler: string): typeof handlerBundling & Pick<BundlingOptions, 'commandHooks'> {
  if (handler === webAppRoute.handler) return webAppBundling;
  return httpRoutes.some((route) => route.handler === handler && route.access.webAuthn)
    ? webAuthnBundling
    : handlerBundling;
}

/**
 * The table actions the store uses, and no others: single-item reads and writes, BatchGet and Query. No Scan, no
 * batch writes, no transactions, no index (the table has none), so no wildcard either.
 */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
} as const;

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
      entry: fileURLToPath(new URL(`../functions/${props.handler}.ts`, import.meta.url)),
      handler: 'handler',
      runtime: functionRuntime,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? memoryFor(access),
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      loggingFormat: LoggingFormat.JSON,
      environment: {
        TABLE_NAME: resources.table.tableName,
        POWERTOOLS_SERVICE_NAME: 'mfa-authorization',
        POWERTOOLS_METRICS_NAMESPACE: resources.metricsNamespace,
        NODE_OPTIONS: '--enable-source-maps',
        ...(access.apiKeys ? { API_KEYS_SECRET_ID: resources.apiKeys.secretArn } : {}),
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
        ...(access.webAuthn ? { WEBAUTHN_MODULE: `./${webAuthnModuleFile}` } : {}),
      },
      bundling: bundlingFor(props.handler),
      role: props.role,
    });
  }
}

/**
 * One IAM role per distinct `Access` of the route table, holding exactly the grants that access declares. Functions
 * that need the same things share a role: the same least privilege, and the stack stays far below CloudFormation's
 * 500 resources (a role and a policy per function would be 120 of them).
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

/** `{ table: 'write', apiKeys: true }` → `TableWriteApiKeys`; no access at all → `Logs`. */
function accessName(access: Access): string {
  const words = [
    ...(access.table ? ['Table', access.table === 'write' ? 'Write' : 'Read'] : []),
    ...(access.apiKeys ? ['ApiKeys'] : []),
    ...(access.webhookQueue ? ['WebhookQueue'] : []),
    ...(access.webhookDelivery ? ['WebhookDelivery'] : []),
    ...(access.pushQueue ? ['PushQueue'] : []),
    ...(access.pushDelivery ? ['PushDelivery'] : []),
  ];
  return words.length ? words.join('') : 'Logs';
}

/** The grants an `Access` declares, on exactly the resources it names. */
export function grantAccess(role: Role, access: Access, resources: RouteFunctionResources): void {
  if (access.table) {
    const actions = [...tableActions.read, ...(access.table === 'write' ? tableActions.write : [])];
    role.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [resources.table.tableArn] }));
  }
  if (access.apiKeys) resources.apiKeys.grantRead(role);
  if (access.webhookQueue || access.webhookDelivery) resources.webhookQueue.grantSendMessages(role);
  if (access.webhookDelivery) resources.webhookDeadLetterQueue.grantSendMessages(role);
  if (access.pushQueue || access.pushDelivery) resources.pushQueue.grantSendMessages(role);
  if (access.pushDelivery) resources.pushDeadLetterQueue.grantSendMessages(role);
}
