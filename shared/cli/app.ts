import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { defaultBaseUrl, defaultDataDir, readDemoOrganization } from '#shared/cli/local-defaults';
import { ApiClient } from '#shared/client/api-client';
import {
  type AuthorizationResponseBody,
  openAuthorizationResponse,
} from '#shared/client/authorization-response';
import { ApiRequestError } from '#shared/client/errors';
import { importPrivateKey } from '#shared/protocol/pem';
import { keyId } from '#shared/protocol/kid';

const help = `Usage: npm run app -- <command> [options]

Plays the application side of an approval as an organization (the local runtime's demo organization unless --org and
--key name another, e.g. one made with the admin CLI on a deployed stack): its key signs for the demo service and
decrypts the device's answer. What it creates is remembered in <data dir>/demo-application.json.

Commands:
  setup [--user <identifier>]
      Create the demo directory (denial reasons enabled), an SDK key and the demo service once, then start linking
      a device for the user. Prints the authenticator command that links it.
  ask [--user <identifier>] [--context <text>] [--title <text>] [--ttl <seconds>] [--denial-reasons]
      Ask the user to approve; prints the auth request id. --denial-reasons offers two reasons, one of them fraud.
  answer [<auth_request>] [--wait <seconds>]
      Wait for the answer (default: up to 300 s) and print it decrypted. An approval starts a session.
  cancel [<auth_request>]
      Cancel the request.

Options:
  --user <identifier>  The directory user (default: alice)
  --org <id>           The organization to act as (with --key; default: the local demo organization)
  --key <path>         Its private key PEM
  --base-url <url>     Service base URL (default: $BASE_URL or http://127.0.0.1:$PORT, port 8080)
  --data-dir <path>    The local runtime's data directory (default: $DATA_DIR or .data)
  --json               Print results as JSON
  -h, --help           Show this help

Exit status: 0 on success, 1 when the service refuses or the request ends unanswered, 2 on bad usage.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    user: { type: 'string', default: 'alice' },
    context: { type: 'string' },
    title: { type: 'string' },
    ttl: { type: 'string' },
    'denial-reasons': { type: 'boolean' },
    wait: { type: 'string', default: '300' },
    'base-url': { type: 'string' },
    'data-dir': { type: 'string' },
    org: { type: 'string' },
    key: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help || positionals.length === 0) {
  console.log(help);
  process.exit(values.help ? 0 : 2);
}

interface DemoApplication {
  directoryId: string;
  sdkKey: string;
  serviceId: string;
  lastAuthRequest?: string;
}

const [command, argument] = positionals;
const dataDir = defaultDataDir(values['data-dir']);
const recordPath = join(dataDir, 'demo-application.json');
if (Boolean(values.org) !== Boolean(values.key)) usage('--org and --key go together.');
const organization =
  values.org && values.key
    ? { organizationId: values.org, privateKeyPath: values.key }
    : await readDemoOrganization(dataDir);
if (!organization) usage(`No demo organization in ${dataDir}; run npm start first, or give --org and --key.`);
const organizationKeyPem = await readFile(organization.privateKeyPath, 'utf8');
const client = new ApiClient({
  baseUrl: defaultBaseUrl(values['base-url']),
  issuer: `org:${organization.organizationId}`,
  privateKeyPem: organizationKeyPem,
});

try {
  await run();
} catch (error) {
  console.error(error instanceof ApiRequestError ? `Refused: ${error.message}` : error);
  process.exitCode = 1;
}

async function run(): Promise<void> {
  switch (command) {
    case 'setup':
      return setup();
    case 'ask':
      return ask();
    case 'answer':
      return answer();
    case 'cancel': {
      const application = await readApplication();
      const authRequest = argument ?? application.lastAuthRequest;
      if (!authRequest) usage('cancel needs an auth request id.');
      await client.call('DELETE', `/service/v3/auths/${authRequest}`, {
        subject: `svc:${application.serviceId}`,
      });
      console.log(`Cancelled ${authRequest}.`);
      return;
    }
    default:
      usage(`Unknown command "${command}".`);
  }
}

async function setup(): Promise<void> {
  let application = await loadApplication();
  if (!application) {
    const suffix = crypto.randomUUID().slice(0, 8);
    const directory = await client.call<{ id: string }>('POST', '/organization/v3/directories', {
      body: { name: `Demo directory ${suffix}` },
    });
    const directoryId = directory.body?.id as string;
    await client.call('PATCH', '/organization/v3/directories', {
      body: { directory_id: directoryId, denial_context_inquiry_enabled: true },
    });
    const sdkKey = await client.call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', {
      body: { directory_id: directoryId },
    });
    const service = await client.call<{ id: string }>('POST', '/directory/v3/services', {
      subject: `dir:${directoryId}`,
      body: { name: `Demo service ${suffix}`, description: 'The README demo', active: true },
    });
    application = {
      directoryId,
      sdkKey: sdkKey.body?.sdk_key as string,
      serviceId: service.body?.id as string,
    };
    await saveApplication(application);
  }
  const link = await client.call<{ code: string; qrcode: string; device_id: string }>(
    'POST',
    '/directory/v3/devices',
    { subject: `dir:${application.directoryId}`, body: { identifier: values.user } },
  );
  const started = link.body;
  if (values.json) {
    console.log(JSON.stringify({ ...application, user: values.user, ...started }, null, 2));
    return;
  }
  console.log(`Directory ${application.directoryId}, service ${application.serviceId}.`);
  console.log(`Device ${started?.device_id} of ${values.user} waits to link (QR image: ${started?.qrcode}).`);
  console.log(
    `Link it with:\n  npm run authenticator -- link --sdk-key ${application.sdkKey} --code ${started?.code}`,
  );
}

async function ask(): Promise<void> {
  const application = await readApplication();
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  const created = await client.call<{ auth_request: string; device_ids: string[] }>(
    'POST',
    '/service/v3/auths',
    {
      subject: `svc:${application.serviceId}`,
      body: {
        username: values.user,
        ...(values.context ? { context: values.context } : {}),
        ...(values.title ? { title: values.title } : {}),
        ...(ttl === undefined ? {} : { ttl }),
        ...(values['denial-reasons']
          ? {
              denial_reasons: [
                { id: 'NOTME', reason: 'I did not ask for this', fraud: true },
                { id: 'LATER', reason: 'Not now', fraud: false },
              ],
            }
          : {}),
      },
    },
  );
  const authRequest = created.body?.auth_request as string;
  await saveApplication({ ...application, lastAuthRequest: authRequest });
  if (values.json) {
    console.log(JSON.stringify(created.body, null, 2));
    return;
  }
  console.log(
    `Asked ${values.user}: auth request ${authRequest} (devices ${created.body?.device_ids.join(', ')}).`,
  );
}

async function answer(): Promise<void> {
  const application = await readApplication();
  const authRequest = argument ?? application.lastAuthRequest;
  if (!authRequest) usage('answer needs an auth request id (or ask first).');
  const subject = `svc:${application.serviceId}`;
  const deadline = Date.now() + Number(values.wait) * 1000;
  for (;;) {
    let response;
    try {
      response = await client.call<AuthorizationResponseBody>('GET', `/service/v3/auths/${authRequest}`, {
        subject,
      });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 408) {
        console.error(`${authRequest} expired unanswered.`);
        process.exitCode = 1;
        return;
      }
      throw error;
    }
    if (response.status === 200 && response.body) {
      const key = importPrivateKey(organizationKeyPem);
      const opened = await openAuthorizationResponse(response.body, new Map([[keyId(key), key]]));
      if (opened.authorized) {
        await client.call('POST', '/service/v3/sessions', {
          subject,
          body: { username: values.user, auth_request: authRequest },
        });
      }
      if (values.json) {
        console.log(JSON.stringify({ ...response.body, decrypted: opened }, null, 2));
        return;
      }
      console.log(
        `${authRequest}: ${opened.type}/${opened.reason}${opened.authorized ? ' (authorized)' : ''}`,
      );
      if (opened.denial_reason) console.log(`denial reason: ${opened.denial_reason}`);
      console.log(`device ${opened.device_id}, service pins ${opened.service_pins.join(', ')}`);
      console.log(`service_user_hash ${response.body.service_user_hash}`);
      if (opened.authorized) console.log(`Session started for ${values.user}.`);
      return;
    }
    if (Date.now() >= deadline) {
      console.error(`${authRequest} is still pending.`);
      process.exitCode = 1;
      return;
    }
    await sleep(1000);
  }
}

async function loadApplication(): Promise<DemoApplication | undefined> {
  try {
    return JSON.parse(await readFile(recordPath, 'utf8')) as DemoApplication;
  } catch {
    return undefined;
  }
}

async function readApplication(): Promise<DemoApplication> {
  return (
    (await loadApplication()) ?? usage(`No demo application in ${dataDir}; run npm run app -- setup first.`)
  );
}

async function saveApplication(application: DemoApplication): Promise<void> {
  await writeFile(recordPath, `${JSON.stringify(application, null, 2)}\n`, { mode: 0o600 });
}

function usage(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}
