import { CustomResource, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  DomainName,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { type ITable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { accessLogJson } from '#infra/access-log';
import { AlarmTopic } from '#infra/alarm-topic';
import { AnnouncementSweep, announcementIndex } from '#infra/announcement-sweep';
import { AuditStore } from '#infra/audit-store';
import { deployProvider } from '#infra/deploy-provider';
import { Edge, type EdgeSettings } from '#infra/edge';
import { KeyCustody } from '#infra/key-custody';
import { type AlarmThresholds, defaultAlarmThresholds, Monitoring } from '#infra/monitoring';
import { acknowledgeFindings } from '#infra/nag-suppressions';
import { applyRouteThrottles } from '#infra/route-throttles';
import { ServiceFunction, serviceName, sourceMapsOption } from '#infra/service-function';
import { serviceTableProps } from '#infra/service-table';
import {
  FunctionRoles,
  grantAccess,
  RouteFunction,
  type RouteFunctionResources,
} from '#infra/route-function';
import {
  consumerId,
  fallbackRoute,
  consoleAuditRoute,
  consoleRoute,
  httpRoutes,
  keyRingAccess,
  loginHandlers,
  pushConsumers,
  pushDelivery,
  pushQueue as pushQueueSettings,
  type QueueConsumer,
  routeId,
  routeThrottles,
  webAppRoute,
  webhookConsumers,
  webhookDelivery,
  webhookQueue,
} from '#infra/routes';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import { defaultAuditRetentionDays } from '#shared/audit/audit-record';

// What an app that embeds the service needs to fill its props.
export { edgeDefaults, type EdgeSettings } from '#infra/edge';
export type { AlarmThresholds } from '#infra/monitoring';

/** Everything is optional: without props the service runs at API Gateway's endpoint, its data retained. */
export interface MfaAuthorizationServiceProps {
  /**
   * What becomes of the data when the service is removed: the table, the audit table, the key secrets and their KMS
   * key. RETAIN (the default) keeps them and turns on the tables' deletion protection; DESTROY deletes them with the
   * stack.
   */
  readonly removalPolicy?: RemovalPolicy;
  readonly logRetention?: RetentionDays;
  /**
   * The API stage; `$default` (the default) serves at the API's root, any other name under `/<name>` of the API's own
   * endpoint (a custom domain still serves at its root). The functions drop that `/<name>` from the path before the
   * signature binding compares it, as the SDKs sign the path without their base URL's.
   */
  readonly stageName?: string;
  /** Serve the API at a domain of your own, with an ACM certificate for it in the stack's region. */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  /** Size of the API key the deployment makes (default 2048; 3072 and 4096 cost more CPU per request). */
  readonly apiKeyBits?: ApiKeySize;
  /** The key-age alarm goes off once the current API key is this many days old (default 365). */
  readonly apiKeyMaxAgeDays?: number;
  /** Rotate the API key on a schedule, every this many days, as `admin api-key rotate` does (default: never). */
  readonly apiKeyRotationDays?: number;
  /**
   * Who besides the stack's roles may read the key secrets (`admin api-key`): IAM ARNs, `*` allowed. Default: the
   * account's IAM Identity Center roles and IAM users (see KeyCustody).
   */
  readonly keyAdministrators?: readonly string[];
  /**
   * The principals through which CloudFormation deploys (IAM ARNs, `*` allowed), which must use the KMS key while it
   * creates the key secrets: a `cdk deploy --role-arn` role, a pipeline's. Default: the CDK bootstrap's execution role.
   */
  readonly deployerRoles?: readonly string[];
  /**
   * An existing table to use instead of making one: one a destroyed stack retained, or a global table's replica in a
   * second region. It must be the service's: its key schema, its TTL and its announcements index.
   */
  readonly table?: ITable;
  /** An existing audit table to use instead of making one, with its append-only resource policy. */
  readonly auditTable?: ITable;
  /** An existing secret holding the API's RSA key ring, to use instead of making one; needs `secretsKey`. */
  readonly apiKeySecret?: ISecret;
  /** An existing secret holding the hash key, to use instead of making one; needs `secretsKey`. */
  readonly hashKeySecret?: ISecret;
  /** An existing secret holding the VAPID key pair, to use instead of making one; needs `secretsKey`. */
  readonly vapidKeysSecret?: ISecret;
  /**
   * An existing KMS key to encrypt the key secrets with instead of making one, and the key of any existing secret.
   * The service replaces its policy at deploy (Custom::KeyPolicy) with the one it gives a key of its own.
   */
  readonly secretsKey?: IKey;
  /**
   * Regions in which the table and the audit table get a replica (DynamoDB global tables), for a stack deployed there
   * when this region is lost (docs/deploy.md, More than one region). None by default.
   */
  readonly tableReplicaRegions?: readonly string[];
  /** Steady requests per second and burst the stage accepts before answering 429 (default 100 and 200). */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  /**
   * Concurrency reserved for each function a login waits on ({@link loginHandlers}), so that a burst elsewhere in the
   * account cannot take it; none by default (an account must keep 100 unreserved, and new accounts may have less).
   */
  readonly loginReservedConcurrency?: number;
  /**
   * Networks (comma-separated CIDRs) webhooks may reach although they are private, e.g. receivers inside a VPC the
   * worker is attached to. None by default: only public addresses.
   */
  readonly webhookAllowedNetworks?: string;
  /** Let webhooks go to plain http URLs (default false: https only). */
  readonly allowHttpWebhooks?: boolean;
  /** Where alarms are sent; without it they still change state in CloudWatch. */
  readonly alarmEmail?: string;
  /** When the 4xx and 429 alarms go off (defaults in {@link AlarmThresholds}). */
  readonly alarmThresholds?: Partial<AlarmThresholds>;
  /**
   * The VAPID contact push services see (`sub`, RFC 8292): a real `mailto:` or `https:` URL (Apple refuses made-up
   * ones). Default: the API's base URL.
   */
  readonly pushContact?: string;
  /** Days an audit record is kept before TTL purges it (default 400). */
  readonly auditRetentionDays?: number;
  /**
   * CloudFront with AWS WAF in front of the API (infra/edge.ts); the custom domain, if any, then goes on CloudFront.
   * Absent: clients reach API Gateway directly. `cdk synth` turns it on unless `-c edge=none`.
   */
  readonly edge?: EdgeSettings;
  /**
   * Stack traces in the logs that name the sources rather than the minified bundles (Node's `--enable-source-maps`).
   * Off by default: Node then parses each bundle's 2 MB source map as it loads, a third of a cold start's init
   * (`npm run bench -- --only cold-start`).
   */
  readonly sourceMaps?: boolean;
}

/**
 * The service in AWS, built from the route table: one function per route behind an HTTP API, the webhook and push
 * workers on their queues, the table, the audit table, the API's keys made at deploy time, alarms and, with `edge`,
 * CloudFront and WAF in front. A construct, so that it can live in any stack; `AuthorizationServiceStack` is the app's
 * own stack around it. The data it keeps (tables, key secrets and their KMS key) outlives it unless `removalPolicy`
 * says DESTROY.
 */
export class MfaAuthorizationService extends Construct {
  /** What clients are given: the custom domain, CloudFront's domain, or API Gateway's endpoint. */
  readonly baseUrl: string;
  /** Where the custom domain's DNS record points, when there is one. */
  readonly customDomainTarget?: string;
  readonly table: ITable;
  readonly auditTable: ITable;
  readonly keyCustody: KeyCustody;
  /** The kid of the API key the deployment made or found. */
  readonly currentApiKeyId: string;
  readonly webhookQueue: Queue;
  readonly webhookDeadLetterQueue: Queue;
  readonly pushQueue: Queue;
  readonly pushDeadLetterQueue: Queue;
  /** Where every function of the service logs: Lambda names each function's streams after it. */
  readonly functionLogs: LogGroup;

  constructor(scope: Construct, id: string, props: MfaAuthorizationServiceProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;
    const alarmThresholds = { ...defaultAlarmThresholds, ...props.alarmThresholds };

    const replicas = (props.tableReplicaRegions ?? []).map((region) => ({ region }));
    const table =
      props.table ??
      new TableV2(this, 'Table', {
        ...serviceTableProps(removalPolicy),
        globalSecondaryIndexes: [announcementIndex],
        ...(replicas.length ? { replicas } : {}),
      });
    this.table = table;

    const [queue, deadLetterQueue] = this.queueWithDeadLetters('Webhook', webhookQueue);
    const [pushQueue, pushDeadLetterQueue] = this.queueWithDeadLetters('Push', pushQueueSettings);
    this.webhookQueue = queue;
    this.webhookDeadLetterQueue = deadLetterQueue;
    this.pushQueue = pushQueue;
    this.pushDeadLetterQueue = pushDeadLetterQueue;

    // The API's keys, a secret per part. The values CloudFormation creates are placeholders: the ApiKeyRing custom
    // resource below writes the real ones, which never appear in the template, an environment variable or a log.
    const keyCustody = new KeyCustody(this, 'KeyCustody', {
      removalPolicy,
      ...(props.keyAdministrators ? { administrators: props.keyAdministrators } : {}),
      ...(props.deployerRoles ? { deployers: props.deployerRoles } : {}),
      existingSecrets: {
        ...(props.apiKeySecret ? { apiKeys: props.apiKeySecret } : {}),
        ...(props.hashKeySecret ? { hashKey: props.hashKeySecret } : {}),
        ...(props.vapidKeysSecret ? { vapidKeys: props.vapidKeysSecret } : {}),
      },
      ...(props.secretsKey ? { existingKey: props.secretsKey } : {}),
    });
    this.keyCustody = keyCustody;
    const apiKeys = keyCustody.secrets.apiKeys;

    this.functionLogs = new LogGroup(this, 'FunctionLogs', {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const destinationPolicyEnvironment = {
      WEBHOOK_ALLOW_HTTP: String(props.allowHttpWebhooks ?? false),
      WEBHOOK_ALLOWED_NETWORKS: props.webhookAllowedNetworks ?? '',
    };
    const auditStore = new AuditStore(this, 'Audit', {
      removalPolicy,
      ...(props.auditTable ? { existingTable: props.auditTable } : {}),
      replicaRegions: props.tableReplicaRegions ?? [],
      metricsNamespace: 'MfaAuthorization',
      serviceName,
    });
    this.auditTable = auditStore.table;
    const resources: RouteFunctionResources = {
      audit: {
        table: auditStore.table,
        retentionDays: props.auditRetentionDays ?? defaultAuditRetentionDays,
      },
      table,
      keyCustody,
      webhookQueue: queue,
      webhookDeadLetterQueue: deadLetterQueue,
      webhookDeliveryEnvironment: {
        WEBHOOK_TIMEOUT_MS: String(webhookDelivery.timeoutMs),
        WEBHOOK_MAX_ATTEMPTS: String(webhookDelivery.maxAttempts),
        WEBHOOK_RETRY_BASE_SECONDS: String(webhookDelivery.retryBaseSeconds),
        ...destinationPolicyEnvironment,
      },
      pushQueue,
      pushDeadLetterQueue,
      pushDeliveryEnvironment: {
        PUSH_TIMEOUT_MS: String(pushDelivery.timeoutMs),
        PUSH_MAX_ATTEMPTS: String(pushDelivery.maxAttempts),
        PUSH_RETRY_BASE_SECONDS: String(pushDelivery.retryBaseSeconds),
      },
      destinationPolicyEnvironment,
      functionLogs: this.functionLogs,
      metricsNamespace: 'MfaAuthorization',
    };

    const roles = new FunctionRoles(this, 'Roles', resources);
    keyCustody.writeExistingKeyPolicy(roles);
    // The key ring function (and its schedule) alone may write the secrets: it gets a role of its own.
    const keyRingRole = roles.newRole('ApiKeyRing');
    grantAccess(keyRingRole, keyRingAccess, resources);
    keyCustody.grantManage(keyRingRole);
    const keyRingFunction = new RouteFunction(this, 'ApiKeyRingFunction', {
      handler: 'deploy/api-key-ring',
      access: keyRingAccess,
      resources,
      role: keyRingRole,
      memorySize: 1024,
      // A 4096-bit RSA key takes seconds to generate on a fraction of a vCPU.
      timeout: Duration.minutes(2),
    });
    const keyRingProvider = deployProvider(this, 'ApiKeyRingProvider', {
      onEventHandler: keyRingFunction,
      role: roles.newRole('ApiKeyRingProvider'),
      logGroup: resources.functionLogs,
    });
    const keyRing = new CustomResource(this, 'ApiKeyRingResource', {
      serviceToken: keyRingProvider.serviceToken,
      resourceType: 'Custom::ApiKeyRing',
      properties: {
        SecretId: apiKeys.secretArn,
        HashKeySecretId: keyCustody.secrets.hashKey.secretArn,
        VapidKeysSecretId: keyCustody.secrets.vapidKeys.secretArn,
        KeyBits: String(props.apiKeyBits ?? 2048),
      },
    });
    // The key ring function runs once its grants on the secrets, which are not in its role, are attached.
    keyRing.node.addDependency(keyCustody);
    this.currentApiKeyId = keyRing.getAttString('CurrentKeyId');
    const keyScheduleFunction = new RouteFunction(this, 'ApiKeyScheduleFunction', {
      handler: 'deploy/api-key-schedule',
      // For the secrets' variables; its role is the key ring function's, which holds the grants.
      access: { ...keyRingAccess, apiKeys: true, hashKey: true, vapidKeys: true },
      resources,
      role: keyRingRole,
      memorySize: 1024,
      timeout: Duration.minutes(2),
    });
    keyScheduleFunction.addEnvironment('API_KEY_BITS', String(props.apiKeyBits ?? 2048));
    keyCustody.schedule(keyScheduleFunction, props.apiKeyRotationDays);

    const fallback = new RouteFunction(this, 'Fallback', {
      ...fallbackRoute,
      resources,
      role: roles.roleFor(fallbackRoute.access),
    });
    // Every function behind the API, which the edge (when on) puts behind CloudFront.
    const apiFunctions: RouteFunction[] = [fallback];
    const api = new HttpApi(this, 'HttpApi', {
      description: 'MFA authorization service (LaunchKey / TruValidate v3 protocol)',
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
      createDefaultStage: false,
      // A custom domain on API Gateway itself leaves no reason to reach the API any other way. CloudFront's origin is
      // the API's own endpoint, which must then stay up: the functions' origin check closes it instead.
      disableExecuteApiEndpoint: Boolean(props.customDomain) && !props.edge,
    });
    for (const route of httpRoutes) {
      const id = routeId(route);
      const handler = new RouteFunction(this, id, {
        handler: route.handler,
        access: route.access,
        resources,
        role: roles.roleFor(route.access),
        ...(props.loginReservedConcurrency && loginHandlers.includes(route.handler)
          ? { reservedConcurrency: props.loginReservedConcurrency }
          : {}),
      });
      apiFunctions.push(handler);
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${id}Integration`, handler),
      });
    }

    const webApp = new RouteFunction(this, 'WebAuthenticator', {
      ...webAppRoute,
      resources,
      role: roles.roleFor(webAppRoute.access),
    });
    apiFunctions.push(webApp);
    const webAppIntegration = new HttpLambdaIntegration('WebAuthenticatorIntegration', webApp);
    for (const path of webAppRoute.paths) {
      api.addRoutes({ path, methods: [HttpMethod.GET], integration: webAppIntegration });
    }

    const consoleApi = new RouteFunction(this, 'ConsoleApi', {
      ...consoleRoute,
      resources,
      role: roles.roleFor(consoleRoute.access),
    });
    apiFunctions.push(consoleApi);
    api.addRoutes({
      path: consoleRoute.path,
      methods: [HttpMethod.ANY],
      integration: new HttpLambdaIntegration('ConsoleApiIntegration', consoleApi),
    });
    const consoleAudit = new RouteFunction(this, 'ConsoleAudit', {
      ...consoleAuditRoute,
      resources,
      role: roles.roleFor(consoleAuditRoute.access),
    });
    apiFunctions.push(consoleAudit);
    api.addRoutes({
      path: consoleAuditRoute.path,
      methods: [HttpMethod.ANY],
      integration: new HttpLambdaIntegration('ConsoleAuditIntegration', consoleAudit),
    });

    const domainName =
      props.customDomain && !props.edge
        ? new DomainName(this, 'DomainName', {
            domainName: props.customDomain.domainName,
            certificate: Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.customDomain.certificateArn,
            ),
          })
        : undefined;
    const stageName = props.stageName ?? '$default';
    // A stage named like a route's first segment would make `/<stage>/…` ambiguous to the functions, which drop a
    // leading `/<stage>` only when the request came in under it.
    if (
      [
        ...httpRoutes.map((route) => route.path),
        ...webAppRoute.paths,
        consoleRoute.path,
        consoleAuditRoute.path,
      ].some((path) => path.split('/')[1] === stageName)
    ) {
      throw new Error(`stageName ${stageName} is the first segment of a route's path: choose another name`);
    }
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // The 429 alarm counts access log lines by the status field of this format: change both together.
    const accessLogFormat = AccessLogFormat.custom(accessLogJson);
    const tooManyRequests = FilterPattern.numberValue('$.status', '=', 429);
    const stageThrottle = props.throttle ?? { rateLimit: 100, burstLimit: 200 };
    const stage = new HttpStage(this, 'Stage', {
      httpApi: api,
      stageName,
      autoDeploy: true,
      throttle: stageThrottle,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat },
      ...(domainName ? { domainMapping: { domainName } } : {}),
    });
    // No request is served before the deployment has its keys, and the functions their grants on them.
    stage.node.addDependency(keyRing, keyCustody);
    applyRouteThrottles(api, stage, routeThrottles, stageThrottle);
    const edge = props.edge
      ? new Edge(this, 'Edge', {
          api,
          stageName,
          settings: props.edge,
          logRetention,
          roles,
          tooManyRequestsThreshold: alarmThresholds.tooManyRequests,
          ...(props.customDomain ? { customDomain: props.customDomain } : {}),
        })
      : undefined;
    for (const fn of apiFunctions) edge?.protect(fn);

    const workers = this.queueWorkers(webhookConsumers, queue, webhookDelivery.functionTimeoutSeconds, {
      resources,
      roles,
    });
    const pushWorkers = this.queueWorkers(pushConsumers, pushQueue, pushDelivery.functionTimeoutSeconds, {
      resources,
      roles,
    });

    const sweep = new AnnouncementSweep(this, 'AnnouncementSweep', { resources, roles });

    const monitoring = new Monitoring(this, 'Monitoring', {
      api,
      stage,
      accessLogs,
      tooManyRequests,
      table,
      workers,
      queue,
      deadLetterQueue,
      pushWorkers,
      pushQueue,
      pushDeadLetterQueue,
      sweep: sweep.function,
      metricsNamespace: resources.metricsNamespace,
      serviceName,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
      thresholds: alarmThresholds,
      apiKeyAge: { scheduleFunction: keyScheduleFunction, maxAgeDays: props.apiKeyMaxAgeDays ?? 365 },
    });
    monitoring.notifyOf(auditStore.alarm);
    if (edge) {
      // The edge's alarm lives where WAF publishes its metrics, us-east-1: a stack there of its own needs a topic there.
      const edgeStack = Stack.of(edge.tooManyRequestsAlarm);
      if (edgeStack === Stack.of(this)) monitoring.notifyOf(edge.tooManyRequestsAlarm);
      else if (props.alarmEmail) {
        new AlarmTopic(edgeStack, 'AlarmTopic', { email: props.alarmEmail }).notify(
          edge.tooManyRequestsAlarm,
        );
      }
    }
    acknowledgeFindings(this, { apiKeySecrets: Object.values(keyCustody.secrets) });

    this.baseUrl = edge
      ? edge.baseUrl
      : domainName
        ? `https://${props.customDomain?.domainName}`
        : (stage.url ?? api.apiEndpoint).replace(/\/$/, '');
    // Passkeys are bound to the API's own origin: without the edge's PUBLIC_BASE_URL, the Host header would choose it.
    if (!edge) for (const fn of apiFunctions) fn.addEnvironment('WEBAUTHN_ORIGINS', this.baseUrl);
    for (const worker of pushWorkers)
      worker.addEnvironment('PUSH_VAPID_SUBJECT', props.pushContact ?? this.baseUrl);
    if (edge && props.customDomain) this.customDomainTarget = edge.distribution.distributionDomainName;
    else if (domainName) this.customDomainTarget = domainName.regionalDomainName;
    if (props.sourceMaps) {
      for (const fn of this.node.findAll())
        if (fn instanceof ServiceFunction) fn.addEnvironment('NODE_OPTIONS', sourceMapsOption);
    }
  }

  /** A worker per consumer of the route table on its queue, reporting each failed message of a batch on its own. */
  private queueWorkers(
    consumers: readonly QueueConsumer[],
    queue: Queue,
    timeoutSeconds: number,
    shared: { readonly resources: RouteFunctionResources; readonly roles: FunctionRoles },
  ): RouteFunction[] {
    return consumers.map((consumer) => {
      const worker = new RouteFunction(this, consumerId(consumer), {
        handler: consumer.handler,
        access: consumer.access,
        resources: shared.resources,
        role: shared.roles.roleFor(consumer.access),
        memorySize: 512,
        timeout: Duration.seconds(timeoutSeconds),
      });
      worker.addEventSource(
        new SqsEventSource(queue, {
          batchSize: consumer.batchSize,
          maxBatchingWindow: Duration.seconds(consumer.maxBatchingWindowSeconds),
          maxConcurrency: consumer.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      return worker;
    });
  }

  /** An event queue and its dead-letter queue, encrypted and TLS-only: `<name>Queue` and `<name>DeadLetterQueue`. */
  private queueWithDeadLetters(
    name: string,
    settings: { visibilityTimeoutSeconds: number; maxReceiveCount: number; deadLetterRetentionDays: number },
  ): [Queue, Queue] {
    const deadLetters = new Queue(this, `${name}DeadLetterQueue`, {
      retentionPeriod: Duration.days(settings.deadLetterRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, `${name}Queue`, {
      visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: settings.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    return [queue, deadLetters];
  }
}
