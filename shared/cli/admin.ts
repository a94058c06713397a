import { chmod, readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import type { ApiKeyRingStorage } from '#shared/api-keys/key-ring-storage';
import type { WebhookQueueUrls } from '#shared/events/dead-letters';

const help = `Usage: npm run admin -- <command> [options]

Operator commands for organizations and the API's own keys. By default they act on the local runtime's data
directory (and use the running runtime if there is one); with --table they act on a deployed stack's table using
your AWS credentials, and with --secret-id on its API key secret.

Commands:
  org create --name <name> [--public-key <file>] [--key-bits <n>] [--out <file>]
      Create an organization and its first key. With --public-key the given PEM is registered; otherwise a key
      pair is generated and the private key written to --out (default: ./org-<id>.pem, mode 0600).
  org list
      List organizations.
  org key add --org <id> --public-key <file> [--key-type 0|1|2] [--expires <ISO 8601>] [--inactive]
      Register another public key for an organization (0 both, 1 encryption, 2 signature).
  service v1-credentials --service <id>
      Issue the service's legacy v1 credentials for GET /v1/poll: an app key and a secret, shown once (only a digest
      is kept). Issuing again retires the previous app key.
  webhooks dead-letters
      List the webhook events in the dead-letter queue: what each was about, its attempts, and why it is there.
  webhooks redrive [--message <id> ...]
      Put dead events (all, or the messages named) back on the webhook queue as first attempts.
  api-key list
      List the API's public keys and which one is current.
  api-key add [--bits 2048|3072|4096]
      Add an API key without making it current: publish it ahead of a rotation.
  api-key rotate [--bits 2048|3072|4096 | --kid <kid>]
      Make a new key (or the existing key --kid) current. Older keys stay published and in the key ring, so
      responses they signed still verify and bodies encrypted to them still decrypt.

Target:
  --data-dir <path>     Local data directory (default: $DATA_DIR or .data)
  --table <name>        A deployed stack's table (AWS; region from $AWS_REGION or --region)
  --region <region>     AWS region for --table and --secret-id
  --secret-id <id>      The deployed API key secret (needed by api-key add and rotate with --table)
  --queue-url <url>     The deployed webhook queue (stack output WebhookQueueUrl), for webhooks with --table
  --dlq-url <url>       The deployed dead-letter queue (stack output WebhookDeadLetterQueueUrl), likewise
  --json                Print results as JSON
  -h, --help            Show this help`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    'public-key': { type: 'string' },
    'key-bits': { type: 'string' },
    out: { type: 'string' },
    org: { type: 'string' },
    service: { type: 'string' },
    'key-type': { type: 'string' },
    expires: { type: 'string' },
    inactive: { type: 'boolean' },
    bits: { type: 'string' },
    kid: { type: 'string' },
    'data-dir': { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    'secret-id': { type: 'string' },
    'queue-url': { type: 'string' },
    'dlq-url': { type: 'string' },
    message: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help || positionals.length === 0) {
  console.log(help);
  process.exit(values.help ? 0 : 2);
}

const command = positionals.join(' ');
const known = [
  'org create',
  'org list',
  'org key add',
  'service v1-credentials',
  'webhooks dead-letters',
  'webhooks redrive',
  'api-key list',
  'api-key add',
  'api-key rotate',
];
if (!known.includes(command)) usage(`Unknown command "${command}".`);

// The store reads its configuration when it loads: point it at its target first.
let close = async (): Promise<void> => undefined;
let keyRing: () => Promise<ApiKeyRingStorage>;
let webhookQueues: () => Promise<{ client: SQSClient; urls: WebhookQueueUrls }>;
if (values.table) {
  process.env.TABLE_NAME = values.table;
  if (values.region) process.env.AWS_REGION = values.region;
  keyRing = async () => {
    if (!values['secret-id']) usage('api-key add and rotate against AWS need --secret-id.');
    const { secretKeyRingStorage } = await import('#shared/api-keys/key-ring-storage');
    return secretKeyRingStorage(values['secret-id']);
  };
  webhookQueues = async () => {
    if (!values['queue-url'] || !values['dlq-url'])
      usage('webhooks with --table need --queue-url and --dlq-url.');
    const { SQSClient } = await import('@aws-sdk/client-sqs');
    return {
      client: new SQSClient({}),
      urls: { queueUrl: values['queue-url'], deadLetterQueueUrl: values['dlq-url'] },
    };
  };
} else {
  const { attachLocalStore } = await import('#infra/local/attach');
  const { localTableName } = await import('#infra/local/runtime');
  const attached = await attachLocalStore(
    values['data-dir'] ?? process.env.DATA_DIR ?? '.data',
    localTableName,
  );
  close = () => attached.close();
  keyRing = async () => {
    const { fileKeyRingStorage } = await import('#shared/api-keys/key-ring-storage');
    return fileKeyRingStorage(attached.apiKeysFile);
  };
  webhookQueues = async () => {
    // The local queues live in the running runtime's memory.
    const { runningRuntime } = await import('#infra/local/attach');
    const running = await runningRuntime(resolve(values['data-dir'] ?? process.env.DATA_DIR ?? '.data'));
    if (!running)
      throw new Error('The webhook queues exist only while the local runtime runs: npm start first.');
    const { SQSClient } = await import('@aws-sdk/client-sqs');
    const { engineClientConfig } = await import('#infra/local/engines');
    return {
      client: new SQSClient(engineClientConfig(running.sqsEndpoint)),
      urls: { queueUrl: running.queueUrl, deadLetterQueueUrl: running.deadLetterQueueUrl },
    };
  };
}

try {
  print(await run(command));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await close();
}

async function run(name: string): Promise<Record<string, unknown> | Record<string, unknown>[]> {
  switch (name) {
    case 'org create': {
      if (!values.name) usage('org create needs --name.');
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
      if (!values.org || !values['public-key']) usage('org key add needs --org and --public-key.');
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
      if (!values.service) usage('service v1-credentials needs --service.');
      const { issueV1Credentials } = await import('#shared/use-cases/v1-poll');
      const issued = await issueV1Credentials(values.service);
      return { service_id: values.service, app_key: issued.app_key, secret: issued.secret };
    }
    case 'webhooks dead-letters':
    case 'webhooks redrive': {
      const { client, urls } = await webhookQueues();
      const deadLetters = await import('#shared/events/dead-letters');
      try {
        const found =
          name === 'webhooks dead-letters'
            ? await deadLetters.listDeadLetters(client, urls)
            : await deadLetters.redriveDeadLetters(
                client,
                urls,
                values.message ? new Set(values.message) : undefined,
              );
        return found.map((letter) => ({
          message_id: letter.messageId,
          ...(letter.event ?? { event: '(not an event of this service)' }),
          attempts: letter.attempts,
          reason: letter.reason,
          sent_at: letter.sentAt,
          ...(name === 'webhooks redrive' ? { redriven: true } : {}),
        }));
      } finally {
        client.destroy();
      }
    }
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
    default:
      return usage(`Unknown command "${name}".`);
  }
}

function bitsOption(): ApiKeySize {
  const bits = Number(values.bits ?? 2048);
  if (bits !== 2048 && bits !== 3072 && bits !== 4096) usage('--bits must be 2048, 3072 or 4096.');
  return bits;
}

function print(result: Record<string, unknown> | Record<string, unknown>[]): void {
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

function usage(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}
