import { access, chmod, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import type { ApiKeyRingStorage, KeyPartStorage } from '#shared/api-keys/key-ring-storage';
import type { WebhookQueueUrls } from '#shared/events/dead-letters';
import { runningRuntime, runtimeRecordPath } from '#infra/local/runtime-record';
import { awsUnreachable } from '#shared/cli/aws-unreachable';
import {
  CliFailure,
  commandUsage,
  dataDirectory,
  exitCodes,
  exitCodesHelp,
  exitWith,
  parseCommandLine,
  refusal,
  runCommand,
  usageFailure,
} from '#shared/cli/common';
import { preflightOptions } from '#shared/cli/preflight-options';

// The AWS SDK tells every process on Node 20 that its later versions need Node 22: noise for an operator, once per
// command. Set before any of its clients loads.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ||= 'true';

/** Each command's synopsis and what it does, for its usage line and the help. */
const commands = {
  preflight: {
    synopsis:
      'preflight --region <region> [--edge waf|none] [--qualifier <qualifier>] [--login-reserved-concurrency <n>] [--key-administrators <arns>] [--deployer-role <arn>] [--deployer-roles <arns>] [--domain-name <name> --certificate-arn <arn>] [--existing-table-name <name>] [--existing-audit-table-name <name>] [--existing-api-key-secret-arn <arn>] [--existing-hash-key-secret-arn <arn>] [--existing-vapid-keys-secret-arn <arn>] [--existing-key-arn <arn>]',
    about: `Before the first deploy, check with your AWS credentials what it needs: the credentials, the CDK bootstrap
      of the stack's region and, with the edge, of us-east-1, the role CloudFormation deploys through, the account's
      Lambda concurrency, whether you will be a key administrator, and the certificate and existing resources named.
      Give it the values you will deploy with: each option is the -c setting of the same name (--existing-table-name
      for -c existingTableName), --qualifier is cdk's, and --deployer-role the role of cdk deploy --role-arn. Prints
      one line per check (ok, fix, or cannot check) with what to do; exits 1 when anything needs a fix.`,
  },
  'org create': {
    synopsis: 'org create --name <name> [--public-key <file>] [--key-bits <n>] [--out <file>]',
    about: `Create an organization and its first key. With --public-key the given PEM is registered; otherwise a key
      pair is generated and the private key written to --out (default: ./org-<id>.pem, mode 0600).`,
  },
  'org list': { synopsis: 'org list', about: 'List organizations.' },
  'org key add': {
    synopsis:
      'org key add --org <id> --public-key <file> [--key-type 0|1|2] [--expires <ISO 8601>] [--inactive]',
    about: 'Register another public key for an organization (0 both, 1 encryption, 2 signature).',
  },
  'service v1-credentials': {
    synopsis: 'service v1-credentials --service <id>',
    about: `Issue the service's legacy v1 credentials for GET /v1/poll: an app key and a secret, shown once (only a digest
      is kept). Issuing again retires the previous app key.`,
  },
  'service claim-look-alikes': {
    synopsis: 'service claim-look-alikes',
    about: `Once, after upgrading from a version that did not refuse look-alike service names: claim the look-alike
      form of every service's name, oldest service first, so no new service can take a look-alike of it. Lists the
      services whose look-alike form another service holds already; both keep their names. Safe to run again.`,
  },
  'console invite': {
    synopsis:
      'console invite (--org <id> --role owner|admin|helpdesk|auditor | --operator) [--base-url <url>]',
    about: `Print a single-use URL that enrols one admin in the console with a passkey: of the organization, with the
      role given, or the deployment's operator with --operator. Shown once, good for 30 minutes. With --table,
      --base-url is the API's public URL (the stack output ApiUrl, or the custom domain's).`,
  },
  'directory settings': {
    synopsis:
      'directory settings --directory <id> [--rate-limit <count>/<seconds>] [--fraud-lock <seconds>|off] [--web-linking on|off] [--proven-factors on|off] [--device-confirmation on|off] [--cooling-off <seconds>|off]',
    about: `Show or change a directory's protections against push fatigue: the requests one user may be sent per
      window (default 30/600), and how long a user is locked after denying a request as fraud (default off); whether
      a device may link with its linking code alone, as the web authenticator does (default on); whether a request
      whose policy asks for inherence may be approved only with a verified passkey (default off); whether a further
      device of a user waits for one of the user's linked devices to confirm it (default on); and how long after an
      application unlinked a user's linked device a new device cannot answer (default 259200, 3 days; only with
      confirmation on). Each change is an audit record of the directory's organization.`,
  },
  'device confirm': {
    synopsis: 'device confirm --directory <id> --user <identifier> --device <id>',
    about: `For a user who lost the phone that would confirm a new device: link a device that waits for
      confirmation (even once its wait is over), or let a device that cools off after an unlink answer at once. The
      directory gets the device link completion webhook of a confirmed link. An audit record of the directory's
      organization.`,
  },
  'directory push': {
    synopsis: 'directory push --directory <id>',
    about: `Show what a directory can push with: the app its ios_p12 certificate pushes to, its APNs token key, and the
      Firebase project of its android_key. Keys are never shown.`,
  },
  'directory apns-key': {
    synopsis:
      'directory apns-key --directory <id> (--p8 <file> --key-id <id> --team-id <id> --topic <bundle id> | --remove)',
    about: `Give a directory a token-based APNs key (the .p8 file from the Apple Developer account, its key id, the team
      id and the app's bundle id), which APNs pushes then use instead of the ios_p12 certificate; or remove it.`,
  },
  'locks list': {
    synopsis: 'locks list --directory <id>',
    about: "List the directory's users locked after a fraud denial, and until when.",
  },
  'locks clear': {
    synopsis: 'locks clear --directory <id> --user <identifier>',
    about: "Lift a user's lock: the directory's services may ask the user again at once.",
  },
  'webhooks dead-letters': {
    synopsis: 'webhooks dead-letters',
    about:
      'List the webhook events in the dead-letter queue: what each was about, its attempts, and why it is there.',
  },
  'webhooks redrive': {
    synopsis: 'webhooks redrive [--message <id> ...]',
    about: 'Put dead events (all, or the messages named) back on the webhook queue as first attempts.',
  },
  'push dead-letters': {
    synopsis: 'push dead-letters',
    about:
      'List the pushes in the dead-letter queue: which request and device, its attempts, and why it is there.',
  },
  'push redrive': {
    synopsis: 'push redrive [--message <id> ...]',
    about: 'Put dead pushes (all, or the messages named) back on the push queue as first attempts.',
  },
  'api-key list': { synopsis: 'api-key list', about: "List the API's public keys and which one is current." },
  'api-key add': {
    synopsis: 'api-key add [--bits 2048|3072|4096]',
    about: 'Add an API key without making it current: publish it ahead of a rotation.',
  },
  'api-key rotate': {
    synopsis: 'api-key rotate [--bits 2048|3072|4096 | --kid <kid>]',
    about: `Make a new key (or the existing key --kid) current. Older keys stay published and in the key ring, so
      responses they signed still verify and bodies encrypted to them still decrypt.`,
  },
  'api-key revoke': {
    synopsis: 'api-key revoke --kid <kid>',
    about: `Revoke a key that is not current: it leaves the key ring and is no longer published, so bodies encrypted
      to it are refused (by running functions within seconds). Revoke a rotated-out key once every client has
      fetched the current one.`,
  },
  audit: {
    synopsis:
      'audit [--since <ISO 8601>] [--until <ISO 8601>] [--organization <id>] [--user <identifier>] [--service <id>] [--outcome success|refused|failed]',
    about: `Print the audit trail as JSON lines, oldest first: every change of state, every authorization request's
      fate and every refusal of a request whose signature verified, from --since (default: 24 hours ago) to --until
      (default: now), of one organization or of all. With --table, name the audit table with --audit-table.`,
  },
} as const;
type Command = keyof typeof commands;

/** Commands that only read: before a local runtime's first start they have nothing to read, and make nothing. */
const readOnly: readonly Command[] = [
  'org list',
  'api-key list',
  'webhooks dead-letters',
  'push dead-letters',
  'locks list',
  'directory push',
  'audit',
];

/** The commands an operator changes a directory's protections with: each writes an audit record. */
const operatorActions: readonly Command[] = [
  'directory settings',
  'locks clear',
  'device confirm',
  'console invite',
];

const { usageOf, commandList } = commandUsage('admin', commands);

const help = `Usage: npm run admin -- <command> [options]

Operator commands for organizations and the API's own keys. By default they act on the local runtime's data
directory (and use the running runtime if there is one, found from its record there); with --table they act on a
deployed stack's table using your AWS credentials, and with --secret-id on its API key secret. A command that only
reads creates nothing: before the local runtime's first start it says so.

Commands:
${Object.values(commands)
  .map(({ synopsis, about }) => `  ${synopsis}\n      ${about}`)
  .join('\n')}

Target:
  --data-dir <path>     Local data directory (default: $DATA_DIR or .data)
  --table <name>        A deployed stack's table (AWS; region from $AWS_REGION or --region)
  --region <region>     AWS region for --table and --secret-id, and the stack's region for preflight
  --secret-id <id>      The deployed API key secret (stack output ApiKeySecretArn), for api-key add, rotate and
                        revoke with --table
  --hash-key-secret-id <id>
                        The deployed hash key secret (stack output HashKeySecretArn), for directory push and
                        directory apns-key with --table
  --queue-url <url>     The deployed webhook queue (stack output WebhookQueueUrl), for webhooks with --table;
                        for push, the push queue (PushQueueUrl)
  --dlq-url <url>       The deployed dead-letter queue (WebhookDeadLetterQueueUrl or PushDeadLetterQueueUrl), likewise
  --audit-table <name>  The deployed audit table (stack output AuditTableName), for audit, directory settings,
                        locks clear and device confirm with --table
  --base-url <url>      The API's public URL, for console invite with --table
  --json                Print results as JSON
  -h, --help            Show this help

${exitCodesHelp} With --table or preflight, 3 also means AWS could not be reached or no credentials were found;
preflight exits 1 when a check needs a fix.`;

const { values, positionals } = parseCommandLine(
  () =>
    parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'public-key': { type: 'string' },
        'key-bits': { type: 'string' },
        out: { type: 'string' },
        org: { type: 'string' },
        service: { type: 'string' },
        directory: { type: 'string' },
        user: { type: 'string' },
        'rate-limit': { type: 'string' },
        'fraud-lock': { type: 'string' },
        'web-linking': { type: 'string' },
        'proven-factors': { type: 'string' },
        'device-confirmation': { type: 'string' },
        'cooling-off': { type: 'string' },
        device: { type: 'string' },
        p8: { type: 'string' },
        'key-id': { type: 'string' },
        'team-id': { type: 'string' },
        topic: { type: 'string' },
        remove: { type: 'boolean' },
        'key-type': { type: 'string' },
        expires: { type: 'string' },
        inactive: { type: 'boolean' },
        bits: { type: 'string' },
        kid: { type: 'string' },
        'data-dir': { type: 'string' },
        table: { type: 'string' },
        region: { type: 'string' },
        'secret-id': { type: 'string' },
        'hash-key-secret-id': { type: 'string' },
        'queue-url': { type: 'string' },
        'dlq-url': { type: 'string' },
        message: { type: 'string', multiple: true },
        since: { type: 'string' },
        until: { type: 'string' },
        organization: { type: 'string' },
        outcome: { type: 'string' },
        'audit-table': { type: 'string' },
        role: { type: 'string' },
        operator: { type: 'boolean' },
        'base-url': { type: 'string' },
        ...preflightOptions,
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  commandList,
);

if (values.help) {
  console.log(help);
  process.exit(0);
}
if (positionals.length === 0) exitWith(usageFailure('Name a command.', commandList));
const given = positionals.join(' ');
if (!Object.hasOwn(commands, given)) exitWith(usageFailure(`Unknown command "${given}".`, commandList));
const command = given as Command;

let close = async (): Promise<void> => undefined;
let keyRing: () => Promise<ApiKeyRingStorage>;
/** The hash key, which seals the directories' push credentials: with --table, the --hash-key-secret-id given. */
let hashKeyStorage: () => Promise<KeyPartStorage<{ readonly hashKey?: string }>>;
let webhookQueues: () => Promise<{ client: SQSClient; urls: WebhookQueueUrls }>;
/** The push queue and its DLQ: with --table, the --queue-url and --dlq-url given (the stack's Push… outputs). */
let pushQueues: () => Promise<{ client: SQSClient; urls: WebhookQueueUrls }>;
/** Points the service's own event publisher (and audit writer) at the target, for a command that announces a change. */
let publishToTarget: () => void;
/** Where the console is: with --table, the --base-url given; locally, the running runtime at `localhost`. */
let consoleBaseUrl: () => string;

await runCommand(
  async () => {
    try {
      if (command === 'preflight') return await preflight();
      await pointAtTarget();
      print(await run(command));
    } catch (error) {
      throw explainAdmin(error);
    } finally {
      await close();
    }
  },
  () => undefined,
);

/** The preflight speaks to AWS alone, with the operator's credentials: no table, no local data. */
async function preflight(): Promise<void> {
  const [{ preflightCommand }, { awsPreflightClients }] = await Promise.all([
    import('#shared/cli/preflight-command'),
    import('#shared/preflight/aws-clients'),
  ]);
  await preflightCommand(values, {
    usage: usageOf('preflight'),
    clients: awsPreflightClients,
    print: console.log,
  });
}

/** The store reads its configuration when it loads: point it at the deployed table or the local data first. */
async function pointAtTarget(): Promise<void> {
  if (values.table) {
    process.env.TABLE_NAME = values.table;
    if (values.region) process.env.AWS_REGION = values.region;
    if (operatorActions.includes(command)) {
      // Each change is an audit record of the directory's organization, which must not go unwritten.
      if (!values['audit-table'])
        fail(`${command} with --table needs --audit-table (the stack output AuditTableName).`);
      process.env.AUDIT_TABLE_NAME = values['audit-table'];
    }
    keyRing = async () => {
      if (!values['secret-id']) fail(`${command} against AWS needs --secret-id (the API key secret).`);
      const { secretKeyRingStorage } = await import('#shared/api-keys/key-ring-storage');
      return secretKeyRingStorage(values['secret-id']);
    };
    hashKeyStorage = async () => {
      const { secretHashKeyStorage } = await import('#shared/api-keys/key-ring-storage');
      if (values['hash-key-secret-id']) return secretHashKeyStorage(values['hash-key-secret-id']);
      // A deployment not yet split still keeps its hash key in the key ring's secret.
      if (values['secret-id']) return keyRing();
      return fail(`${command} against AWS needs --hash-key-secret-id (the hash key secret).`);
    };
    webhookQueues = async () => {
      if (!values['queue-url'] || !values['dlq-url'])
        fail('webhooks and push with --table need --queue-url and --dlq-url.');
      const { SQSClient } = await import('@aws-sdk/client-sqs');
      return {
        client: new SQSClient({}),
        urls: { queueUrl: values['queue-url'], deadLetterQueueUrl: values['dlq-url'] },
      };
    };
    pushQueues = webhookQueues;
    consoleBaseUrl = () =>
      values['base-url'] ?? fail(`${command} with --table needs --base-url (the API's URL).`);
    publishToTarget = () => {
      if (!values['queue-url'] || !values['audit-table'])
        fail(
          `${command} with --table needs --queue-url (WebhookQueueUrl) and --audit-table (AuditTableName).`,
        );
      process.env.WEBHOOK_QUEUE_URL = values['queue-url'];
      process.env.AUDIT_TABLE_NAME = values['audit-table'];
    };
    return;
  }
  const dataDir = dataDirectory(values['data-dir']);
  const running = await runningRuntime(dataDir);
  consoleBaseUrl = () => {
    if (values['base-url']) return values['base-url'];
    if (!running) {
      throw new CliFailure(
        `${command} needs the local runtime's URL, and none is recorded in ${runtimeRecordPath(dataDir)}: start it with \`npm start\`, or pass --base-url.`,
        exitCodes.unreachable,
      );
    }
    // Passkeys are bound to localhost locally, whatever loopback address the runtime listens on.
    const url = new URL(running.baseUrl);
    url.hostname = 'localhost';
    return url.origin;
  };
  publishToTarget = () => {
    if (!running) {
      throw new CliFailure(
        `${command} queues a webhook, which needs the local runtime running; none is recorded in ${runtimeRecordPath(dataDir)}: start it with \`npm start\`.`,
        exitCodes.unreachable,
      );
    }
    process.env.WEBHOOK_QUEUE_URL = running.queueUrl;
    process.env.AWS_ENDPOINT_URL_SQS = running.sqsEndpoint;
  };
  webhookQueues = async () => {
    // The local queues live in the running runtime's memory.
    if (!running) {
      throw new CliFailure(
        `The webhook queues exist only while the local runtime runs, and none is recorded in ${runtimeRecordPath(dataDir)}: start it with \`npm start\`.`,
        exitCodes.unreachable,
      );
    }
    const { SQSClient } = await import('@aws-sdk/client-sqs');
    const { engineClientConfig } = await import('#infra/local/engines');
    return {
      client: new SQSClient(engineClientConfig(running.sqsEndpoint)),
      urls: { queueUrl: running.queueUrl, deadLetterQueueUrl: running.deadLetterQueueUrl },
    };
  };
  pushQueues = async () => {
    const { client } = await webhookQueues();
    if (!running?.pushQueueUrl || !running.pushDeadLetterQueueUrl) {
      client.destroy();
      throw new CliFailure('The running local runtime predates pushes: restart it.', exitCodes.unreachable);
    }
    return {
      client,
      urls: { queueUrl: running.pushQueueUrl, deadLetterQueueUrl: running.pushDeadLetterQueueUrl },
    };
  };
  if (command.startsWith('webhooks ') || command.startsWith('push ')) return;
  if (!running && readOnly.includes(command) && !(await exists(join(dataDir, 'dynamodb')))) {
    throw new CliFailure(
      `No local data in ${dataDir}: no local runtime has run there yet. Start one with \`npm start\`, or pass the --data-dir it uses.`,
      exitCodes.unreachable,
    );
  }
  const { attachLocalStore } = await import('#infra/local/attach');
  const { localTableName } = await import('#infra/local/runtime');
  const attached = await attachLocalStore(dataDir, localTableName);
  process.env.AUDIT_TABLE_NAME = (await import('#infra/local/runtime')).localAuditTableName;
  close = () => attached.close();
  keyRing = async () => {
    const { fileKeyRingStorage } = await import('#shared/api-keys/key-ring-storage');
    return fileKeyRingStorage(attached.apiKeysFile);
  };
  hashKeyStorage = async () => {
    const { fileKeyCustody, keyFilesBeside } = await import('#shared/api-keys/key-ring-storage');
    return fileKeyCustody(keyFilesBeside(attached.apiKeysFile)).hashKey;
  };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Every failure of an operator command is expected and printed in one line: AWS out of reach (or no credentials)
 * is 3, anything the store or a use case refuses is 1.
 */
function explainAdmin(error: unknown): unknown {
  if (error instanceof CliFailure || !(error instanceof Error)) return error;
  const unreachable = awsUnreachable(error);
  if (unreachable) return unreachable;
  const code = (error as { code?: unknown }).code;
  // A file the operator named (a public key, --out) that cannot be read or written.
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR')
    return usageFailure(error.message, usageOf(command));
  return refusal(error.message);
}

function fail(message: string): never {
  throw usageFailure(message, usageOf(command));
}

async function run(name: string): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  switch (name) {
    case 'org create': {
      if (!values.name) fail('org create needs --name.');
      const { createOrganization } = await import('#shared/use-cases/create-organization');
      const created = await createOrganization({
        name: values.name,
        ...(values['public-key'] ? { publicKeyPem: await readFile(values['public-key'], 'utf8') } : {}),
        ...(values['key-bits'] ? { keyBits: Number(values['key-bits']) } : {}),
      });
      let privateKeyPath: string | undefined;
      if (created.privateKeyPem) {
        privateKeyPath = values.out ?? `org-${created.organization.id}.pem`;
        await writeFile(privateKeyPath, created.privateKeyPem, { mode: 0o600 });
        await chmod(privateKeyPath, 0o600);
      }
      return {
        organization_id: created.organization.id,
        issuer: `org:${created.organization.id}`,
        name: created.organization.name,
        key_id: created.key.kid,
        ...(privateKeyPath ? { private_key: privateKeyPath } : {}),
      };
    }
    case 'org list': {
      const { listOrganizations } = await import('#shared/store/organizations');
      return (await listOrganizations()).map((organization) => ({ ...organization }));
    }
    case 'org key add': {
      if (!values.org || !values['public-key']) fail('org key add needs --org and --public-key.');
      const { getOrganization } = await import('#shared/store/organizations');
      if (!(await getOrganization(values.org))) throw new Error(`There is no organization ${values.org}`);
      const { addEntityKey } = await import('#shared/use-cases/entity-keys');
      const key = await addEntityKey(
        { type: 'org', id: values.org },
        {
          publicKeyPem: await readFile(values['public-key'], 'utf8'),
          ...(values['key-type'] === undefined ? {} : { keyType: Number(values['key-type']) }),
          ...(values.expires === undefined
            ? {}
            : { expires: new Date(values.expires).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
          active: !values.inactive,
        },
      );
      return { key_id: key.kid, key_type: key.keyType, active: key.active, date_expires: key.expires };
    }
    case 'service v1-credentials': {
      if (!values.service) fail('service v1-credentials needs --service.');
      const { issueV1Credentials } = await import('#shared/use-cases/v1-poll');
      const issued = await issueV1Credentials(values.service);
      return { service_id: values.service, app_key: issued.app_key, secret: issued.secret };
    }
    case 'service claim-look-alikes': {
      const { claimLookAlikeNames } = await import('#shared/use-cases/look-alike-names');
      const { services, clashes } = await claimLookAlikeNames(new Date());
      return {
        services,
        look_alikes_held_by_others:
          clashes
            .map(
              (clash) =>
                `${clash.service_id} (${JSON.stringify(clash.name)}) looks like ${clash.look_alike_of}`,
            )
            .join('; ') || 'none',
      };
    }
    case 'console invite': {
      const organizationId = values.operator ? null : (values.org ?? null);
      const role = values.operator ? 'operator' : values.role;
      if (values.operator && (values.org || values.role))
        fail('console invite takes --operator alone, or --org with --role.');
      if (!values.operator && (!values.org || !role))
        fail('console invite needs --org and --role, or --operator.');
      const { organizationRoles } = await import('#shared/domain/console-admin');
      if (role !== 'operator' && !organizationRoles.includes(role as never))
        fail(`--role must be one of ${organizationRoles.join(', ')}.`);
      const baseUrl = consoleBaseUrl();
      const [{ createConsoleInvite }, { recordOperatorAction }, { deploymentAuditPartition }] =
        await Promise.all([
          import('#shared/use-cases/console-invites'),
          import('#shared/audit/operator-action-record'),
          import('#shared/audit/console-action-record'),
        ]);
      const now = new Date();
      const invite = await createConsoleInvite(
        { organizationId, role: role as 'operator', invitedBy: operatorName(), baseUrl },
        now,
      );
      await recordOperatorAction(
        {
          organizationId: organizationId ?? deploymentAuditPartition,
          actor: operatorName(),
          operation: `admin console invite --role ${role}`,
          target: role,
        },
        now,
      );
      return { url: invite.url, expires_at: invite.expiresAt, role, organization_id: organizationId };
    }
    case 'directory settings': {
      if (!values.directory) fail('directory settings needs --directory.');
      const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
      return {
        ...(await updateDirectorySettings(
          values.directory,
          {
            ...(values['rate-limit'] === undefined ? {} : { rateLimit: values['rate-limit'] }),
            ...(values['fraud-lock'] === undefined ? {} : { fraudLock: values['fraud-lock'] }),
            ...(values['web-linking'] === undefined ? {} : { webLinking: values['web-linking'] }),
            ...(values['proven-factors'] === undefined ? {} : { provenFactors: values['proven-factors'] }),
            ...(values['device-confirmation'] === undefined
              ? {}
              : { deviceConfirmation: values['device-confirmation'] }),
            ...(values['cooling-off'] === undefined ? {} : { coolingOff: values['cooling-off'] }),
          },
          { operator: operatorName() },
        )),
      };
    }
    case 'device confirm': {
      if (!values.directory || values.user === undefined || !values.device)
        fail('device confirm needs --directory, --user and --device.');
      publishToTarget();
      const { overrideDeviceConfirmation } = await import('#shared/use-cases/confirm-device-link');
      const { outcome } = await overrideDeviceConfirmation(
        { directoryId: values.directory, identifier: values.user, deviceId: values.device },
        { operator: operatorName() },
        new Date(),
      );
      return { directory_id: values.directory, identifier: values.user, device_id: values.device, outcome };
    }
    case 'directory push':
    case 'directory apns-key': {
      if (!values.directory) fail(`${name} needs --directory.`);
      const hashKey = await openedHashKey();
      const push = await import('#shared/use-cases/directory-push');
      if (name === 'directory push')
        return { ...(await push.describeDirectoryPush(values.directory, hashKey)) };
      if (values.remove) return { ...(await push.removeApnsTokenKey(values.directory, hashKey)) };
      if (!values.p8 || !values['key-id'] || !values['team-id'] || !values.topic)
        fail('directory apns-key needs --p8, --key-id, --team-id and --topic, or --remove.');
      const keyPem = await readFile(values.p8, 'utf8');
      return {
        ...(await push.setApnsTokenKey(values.directory, hashKey, {
          keyPem,
          keyId: values['key-id'],
          teamId: values['team-id'],
          topic: values.topic,
        })),
      };
    }
    case 'locks list': {
      if (!values.directory) fail('locks list needs --directory.');
      const { listLockedUsers } = await import('#shared/use-cases/directory-settings');
      return listLockedUsers(values.directory, new Date());
    }
    case 'locks clear': {
      if (!values.directory || values.user === undefined) fail('locks clear needs --directory and --user.');
      const { unlockUser } = await import('#shared/use-cases/directory-settings');
      await unlockUser(values.directory, values.user, operatorName());
      return { directory_id: values.directory, identifier: values.user, locked: false };
    }
    case 'webhooks dead-letters':
    case 'webhooks redrive':
    case 'push dead-letters':
    case 'push redrive': {
      const push = name.startsWith('push ');
      const { client, urls } = await (push ? pushQueues() : webhookQueues());
      const deadLetters = await import('#shared/events/dead-letters');
      const codec = push ? deadLetters.pushMessages : deadLetters.webhookMessages;
      try {
        const found = name.endsWith('dead-letters')
          ? await deadLetters.listDeadLetters(client, urls, 1000, codec)
          : await deadLetters.redriveDeadLetters(
              client,
              urls,
              values.message ? new Set(values.message) : undefined,
              codec,
            );
        return found.map((letter) => ({
          message_id: letter.messageId,
          ...(letter.event ?? { event: '(not an event of this service)' }),
          attempts: letter.attempts,
          reason: letter.reason,
          sent_at: letter.sentAt,
          ...(name.endsWith('redrive') ? { redriven: true } : {}),
        }));
      } finally {
        client.destroy();
      }
    }
    case 'audit':
      return auditTrail();
    case 'api-key list': {
      const { listApiPublicKeys } = await import('#shared/store/api-keys');
      const { current, keys } = await listApiPublicKeys();
      return keys.map((key) => ({ kid: key.kid, created: key.created, current: key.kid === current }));
    }
    case 'api-key add':
    case 'api-key rotate': {
      const storage = await keyRing();
      const api = await import('#shared/use-cases/api-keys');
      const key =
        name === 'api-key rotate' && values.kid
          ? await api.makeApiKeyCurrent(storage, values.kid)
          : await api.addApiKey(storage, { bits: bitsOption(), makeCurrent: name === 'api-key rotate' });
      return { kid: key.kid, created: key.created, current: name === 'api-key rotate' };
    }
    case 'api-key revoke': {
      if (!values.kid) fail('api-key revoke needs --kid.');
      const storage = await keyRing();
      const { revokeApiKey } = await import('#shared/use-cases/api-keys');
      return { ...(await revokeApiKey(storage, values.kid)), revoked: true };
    }
    default:
      return fail(`Unknown command "${name}".`);
  }
}

/** Who the audit trail names for an operator's change: the account running the CLI. */
function operatorName(): string {
  try {
    return `admin-cli:${userInfo().username}`;
  } catch {
    return 'admin-cli';
  }
}

/** The hash key, for what is sealed under it. */
async function openedHashKey(): Promise<Buffer> {
  const storage = await hashKeyStorage();
  // Before its split (a deployment not yet updated, a data directory not yet started), the ring holds the hash key.
  const hashKey = (await storage.read())?.hashKey ?? (await (await keyRing()).read())?.hashKey;
  if (hashKey === undefined)
    throw new CliFailure(`There is no hash key in ${storage.description} yet.`, exitCodes.unreachable);
  const { openHashKey } = await import('#shared/api-keys/hash-key');
  return openHashKey({ hashKey });
}

function bitsOption(): ApiKeySize {
  const bits = Number(values.bits ?? 2048);
  if (bits !== 2048 && bits !== 3072 && bits !== 4096) fail('--bits must be 2048, 3072 or 4096.');
  return bits;
}

/** The records `admin audit` asks for. */
async function auditTrail(): Promise<Record<string, unknown>[]> {
  if (values.table) {
    if (!values['audit-table'])
      fail('audit with --table needs --audit-table (the stack output AuditTableName).');
    process.env.AUDIT_TABLE_NAME = values['audit-table'];
  }
  const instant = (option: 'since' | 'until', fallback: Date): Date => {
    const text = values[option];
    if (text === undefined) return fallback;
    const date = new Date(text);
    if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime()))
      fail(`--${option} must be an ISO 8601 date or date-time.`);
    return date;
  };
  const until = instant('until', new Date());
  const since = instant('since', new Date(until.getTime() - 86_400_000));
  const { auditOutcomes } = await import('#shared/audit/audit-record');
  const outcome = values.outcome as (typeof auditOutcomes)[number] | undefined;
  if (outcome !== undefined && !auditOutcomes.includes(outcome))
    fail(`--outcome must be one of ${auditOutcomes.join(', ')}.`);
  const { listOrganizations } = await import('#shared/store/organizations');
  const organizationIds = values.organization
    ? [values.organization]
    : (await listOrganizations()).map((organization) => organization.id);
  const { readAuditTrail } = await import('#shared/audit/read-audit-trail');
  const records = await readAuditTrail({
    organizationIds,
    since,
    until,
    user: values.user,
    serviceId: values.service,
    outcome,
  });
  const range =
    values.since === undefined && values.until === undefined
      ? 'in the last 24 hours'
      : `from ${since.toISOString()} to ${until.toISOString()}`;
  const filters = (['organization', 'user', 'service', 'outcome'] as const).flatMap((option) =>
    values[option] === undefined ? [] : [`--${option} ${values[option]}`],
  );
  // Said by what was asked: a filter that matched nothing is not an empty trail.
  noAuditRecords =
    filters.length > 0
      ? `(no audit records match those filters: ${filters.join(' ')}, ${range})`
      : `(no audit records ${range})`;
  return records.map((record) => ({ ...record }));
}

/** What `audit` says on stderr when nothing matched. */
let noAuditRecords = '(no audit records)';

function print(result: Record<string, unknown> | Record<string, unknown>[]): void {
  if (command === 'audit') {
    // JSON lines, for jq and log tools: one record per line, nothing else on stdout.
    for (const record of result as Record<string, unknown>[]) console.log(JSON.stringify(record));
    if ((result as unknown[]).length === 0) console.error(noAuditRecords);
    return;
  }
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  if (rows.length === 0) console.log('(none)');
  for (const row of rows) {
    console.log(
      Object.entries(row)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join('\n'),
    );
    if (rows.length > 1) console.log('');
  }
}
