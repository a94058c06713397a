import { mkdir } from 'node:fs/promises';
import { browserOrigin } from '#shared/client/browser-origin';
import { resolve } from 'node:path';
import {
  removeRuntimeRecord,
  type RuntimeRecord,
  runningRuntime,
  writeRuntimeRecord,
} from '#infra/local/attach';
import { engineEnvironment, type LocalEngines, startEngines } from '#infra/local/engines';
import {
  ensureAuditTable,
  ensurePushQueues,
  ensureQueues,
  ensureTable,
  type WebhookQueues,
} from '#infra/local/provision';
import type { QueuePoller } from '#infra/local/queue-poller';
import {
  pushConsumers,
  pushDelivery,
  type QueueConsumer,
  webhookConsumers,
  webhookDelivery,
} from '#infra/routes';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import {
  UndeclaredTableAccessError,
  undeclaredTableAccesses,
  withTableGrant,
} from '#shared/store/table-grant-check';
import { closeServer } from '#infra/local/close-server';

export interface LocalRuntimeOptions {
  readonly dataDir: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  /** Size of the API key created on first start. */
  readonly apiKeyBits?: ApiKeySize;
  /** Powertools log level of the handlers; SILENT in tests. */
  readonly logLevel?: string;
}

export interface LocalRuntime {
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly tableName: string;
  readonly apiKeysFile: string;
  readonly queues: WebhookQueues;
  readonly pushQueues: WebhookQueues;
  readonly engines: Pick<LocalEngines, 'dynamoEndpoint' | 'sqsEndpoint'>;
  readonly organization: { organizationId: string; kid: string; privateKeyPath: string; created: boolean };
  /** Paths of the data directory that other users could read or write, tightened at this start. */
  readonly tightened: readonly string[];
  stop(): Promise<void>;
}

export const localTableName = 'mfa-authorization';
/** The audit trail's table, beside the service's as in AWS. */
export const localAuditTableName = `${localTableName}-audit`;

export class DataDirectoryInUseError extends Error {
  override readonly name = 'DataDirectoryInUseError';
}

/**
 * Everything `npm start` runs, in one process: the embedded store and queue, the route table's handlers behind an
 * HTTP server, and the queue poller. The handlers see the same environment variables as in AWS; only the endpoints
 * and the API key file differ.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const dataDir = await claimDataDirectory(options.dataDir);
  const engines = await startEngines(dataDir);
  // The last step, once everything else has stopped: a store call outside its route's grant fails the run, even one
  // a handler caught, as it would have failed in AWS.
  const refusedBefore = undeclaredTableAccesses().length;
  const stops: (() => Promise<void>)[] = [
    async () => {
      const refused = undeclaredTableAccesses(refusedBefore);
      if (refused.length > 0) throw new UndeclaredTableAccessError(refused.join('\n'));
    },
    () => engines.close(),
  ];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const apiKeysPath = resolve(dataDir, 'api-keys.json');
    Object.assign(process.env, {
      ...engineEnvironment({ ...engines, tableName: localTableName, apiKeysFile: apiKeysPath }),
      POWERTOOLS_LOG_LEVEL: options.logLevel ?? process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
      POWERTOOLS_SERVICE_NAME: 'mfa-authorization-local',
      AUDIT_TABLE_NAME: localAuditTableName,
      // CloudWatch metrics are log lines in AWS; locally they would only clutter the output.
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    });
    for (const name of ['API_KEYS_SECRET_ID', 'HASH_KEY_SECRET_ID', 'VAPID_KEYS_SECRET_ID'])
      delete process.env[name];
    delete process.env.AWS_PROFILE;

    const announcementIndex = await ensureTable(engines.dynamoEndpoint, localTableName);
    await ensureAuditTable(engines.dynamoEndpoint, localAuditTableName);
    const queues = await ensureQueues(engines.sqsEndpoint, localTableName);
    const pushQueues = await ensurePushQueues(engines.sqsEndpoint, localTableName);
    Object.assign(process.env, {
      WEBHOOK_QUEUE_URL: queues.queueUrl,
      WEBHOOK_DLQ_URL: queues.deadLetterQueueUrl,
      PUSH_QUEUE_URL: pushQueues.queueUrl,
      PUSH_DLQ_URL: pushQueues.deadLetterQueueUrl,
      // Webhooks and pushes may go to this machine's own receivers; the operator's environment wins.
      ...localWebhookDefaults(process.env),
      ...localPushDefaults(process.env),
    });

    // One readable line per delivery attempt in the terminal; LOG_FORMAT=json keeps the JSON AWS logs get.
    if (process.env.LOG_FORMAT !== 'json') {
      const [{ logger }, { readableDeliveryLine }] = await Promise.all([
        import('#shared/log'),
        import('#infra/local/delivery-log'),
      ]);
      logger.lineFormat = readableDeliveryLine;
    }

    // The store and the handlers read their configuration when they load, so they load only now.
    const { ensureApiKeys, ensureDemoOrganization } = await import('#infra/local/bootstrap');
    await ensureApiKeys(dataDir, options.apiKeyBits ?? 2048);
    const organization = await ensureDemoOrganization(dataDir);

    const { startHttpServer } = await import('#infra/local/http-server');
    const { server, url } = await startHttpServer({ port: options.port, host: options.host ?? '127.0.0.1' });
    stops.push(() => closeServer(server));
    Object.assign(process.env, localPasskeyDefaults(process.env, url));

    const pollers = [
      ...(await startConsumers(engines.sqsEndpoint, queues, 'webhooks', webhookConsumers, webhookDelivery)),
      ...(await startConsumers(engines.sqsEndpoint, pushQueues, 'push', pushConsumers, pushDelivery)),
    ];
    stops.push(async () => {
      await Promise.all(pollers.map((poller) => poller.stop()));
    });
    // A data directory from before the announcement index cannot get it: such a runtime runs without the sweep.
    if (announcementIndex) {
      const { startAnnouncementSweep } = await import('#infra/local/announcement-sweep');
      stops.push(await startAnnouncementSweep());
    } else {
      console.warn(
        'The table predates the announcement index: no announcement sweep (a new data directory has it)',
      );
    }

    await writeRuntimeRecord(
      dataDir,
      runtimeRecordOf({
        baseUrl: url,
        engines,
        queues,
        pushQueues,
        source: 'sources',
        node: process.version,
      }),
    );
    stops.push(() => removeRuntimeRecord(dataDir));

    return {
      baseUrl: url,
      dataDir,
      tableName: localTableName,
      apiKeysFile: apiKeysPath,
      queues,
      pushQueues,
      engines: { dynamoEndpoint: engines.dynamoEndpoint, sqsEndpoint: engines.sqsEndpoint },
      organization,
      tightened: engines.tightened,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The data directory, made if missing (for this user only), refused while another runtime uses it. */
export async function claimDataDirectory(path: string): Promise<string> {
  const dataDir = resolve(path);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const other = await runningRuntime(dataDir);
  if (other) {
    throw new DataDirectoryInUseError(
      `Another local runtime (pid ${other.pid}, ${other.baseUrl}) is using ${dataDir}`,
    );
  }
  return dataDir;
}

/** What the data directory's record says of a runtime serving from it, for the CLIs beside it. */
export function runtimeRecordOf(parts: {
  readonly baseUrl: string;
  readonly engines: Pick<LocalEngines, 'dynamoEndpoint' | 'sqsEndpoint'>;
  readonly queues: WebhookQueues;
  readonly pushQueues: WebhookQueues;
  readonly source: 'sources' | 'assembly';
  readonly node: string;
}): RuntimeRecord {
  return {
    pid: process.pid,
    dynamoEndpoint: parts.engines.dynamoEndpoint,
    sqsEndpoint: parts.engines.sqsEndpoint,
    baseUrl: parts.baseUrl,
    tableName: localTableName,
    queueUrl: parts.queues.queueUrl,
    deadLetterQueueUrl: parts.queues.deadLetterQueueUrl,
    pushQueueUrl: parts.pushQueues.queueUrl,
    pushDeadLetterQueueUrl: parts.pushQueues.deadLetterQueueUrl,
    source: parts.source,
    node: parts.node,
  };
}

/** What this process's last runtime set WEBAUTHN_ORIGINS to, so that the next one sets its own port's. */
let runtimePasskeyOrigins: string | undefined;

/**
 * Passkeys bound to the browser's origin of this runtime, whatever Host a request names (there is no
 * PUBLIC_BASE_URL here); an operator's WEBAUTHN_ORIGINS wins.
 */
function localPasskeyDefaults(env: NodeJS.ProcessEnv, baseUrl: string): Record<string, string> {
  if (env.WEBAUTHN_ORIGINS !== undefined && env.WEBAUTHN_ORIGINS !== runtimePasskeyOrigins) return {};
  runtimePasskeyOrigins = browserOrigin(baseUrl);
  return { WEBAUTHN_ORIGINS: runtimePasskeyOrigins };
}

/** The worker's settings as in AWS, except that http and loopback receivers are allowed. */
function localWebhookDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const defaults: Record<string, string> = {
    WEBHOOK_TIMEOUT_MS: String(webhookDelivery.timeoutMs),
    WEBHOOK_MAX_ATTEMPTS: String(webhookDelivery.maxAttempts),
    WEBHOOK_RETRY_BASE_SECONDS: String(webhookDelivery.retryBaseSeconds),
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
  };
  return Object.fromEntries(Object.entries(defaults).filter(([name]) => env[name] === undefined));
}

/**
 * The push worker's settings as in AWS; the VAPID contact is a placeholder of the right form, which a machine that
 * pushes to real browsers should replace with the operator's own (PUSH_VAPID_SUBJECT).
 */
function localPushDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const defaults: Record<string, string> = {
    PUSH_TIMEOUT_MS: String(pushDelivery.timeoutMs),
    PUSH_MAX_ATTEMPTS: String(pushDelivery.maxAttempts),
    PUSH_RETRY_BASE_SECONDS: String(pushDelivery.retryBaseSeconds),
    PUSH_VAPID_SUBJECT: 'mailto:postmaster@example.com',
  };
  return Object.fromEntries(Object.entries(defaults).filter(([name]) => env[name] === undefined));
}

async function startConsumers(
  endpoint: string,
  queues: WebhookQueues,
  queueName: string,
  consumers: readonly QueueConsumer[],
  delivery: { readonly functionTimeoutSeconds: number },
): Promise<QueuePoller[]> {
  if (consumers.length === 0) return [];
  const { startQueuePoller } = await import('#infra/local/queue-poller');
  return Promise.all(
    consumers.map(async (consumer) => {
      const specifier = `#functions/${consumer.handler}`;
      const { handler } = (await import(/* @vite-ignore */ specifier)) as {
        handler: Parameters<typeof startQueuePoller>[0]['handler'];
      };
      return startQueuePoller({
        endpoint,
        queueUrl: queues.queueUrl,
        queueArn: `arn:aws:sqs:us-east-1:000000000000:${localTableName}-${queueName}`,
        functionName: consumer.handler,
        handler: (event, context) =>
          withTableGrant(consumer.handler, consumer.access.table, () => handler(event, context)),
        batchSize: consumer.batchSize,
        functionTimeoutMs: delivery.functionTimeoutSeconds * 1000,
        // Short polls (see the poller) make an idle pause the floor of a webhook's or push's latency; an empty
        // receive costs the engine about a millisecond.
        idleMs: 25,
      });
    }),
  );
}
