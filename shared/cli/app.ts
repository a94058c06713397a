import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  type ApiLocation,
  commandUsage,
  dataDirectory,
  exitCodesHelp,
  exitWith,
  locateApi,
  noLocalRuntime,
  parseCommandLine,
  readDemoOrganization,
  readKeyFile,
  refusal,
  runCommand,
  usageFailure,
} from '#shared/cli/common';
import { ApiClient } from '#shared/client/api-client';
import {
  type AuthorizationResponseBody,
  openAuthorizationResponse,
} from '#shared/client/authorization-response';
import { ApiRequestError } from '#shared/client/errors';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { importPrivateKey } from '#shared/protocol/pem';
import { keyId } from '#shared/protocol/kid';

/** Each command's synopsis and what it does, for its usage line and the help. */
const commands = {
  setup: {
    synopsis: 'setup [--user <identifier>]',
    about: `Create the demo directory (denial reasons enabled), an SDK key and the demo service once, then start linking
      a device for the user. Prints the authenticator command that links it, and the web authenticator's URL
      with the code (at localhost for a runtime on this machine, where passkeys work).`,
  },
  policy: {
    synopsis: 'policy [--amount <n> | --types <list>] [--fence <lat,lon,radius[,name]> ...] [--clear]',
    about: `Set the demo service's policy: --amount, how many authentication methods (0 to 5), or --types, which
      types of factor (comma-separated: knowledge, inherence, possession); --fence, a circle the device must be in
      (degrees, radius in metres; repeat it for more). --clear removes the policy. Prints the policy in force;
      without options, that is all it does.`,
  },
  ask: {
    synopsis:
      'ask [--user <identifier>] [--context <text>] [--title <text>] [--ttl <seconds>] [--denial-reasons]',
    about:
      'Ask the user to approve; prints the auth request id. --denial-reasons offers two reasons, one of them fraud.',
  },
  answer: {
    synopsis: 'answer [<auth_request>] [--wait <seconds>]',
    about: `Wait for the answer to the last request asked (or the one named), up to --wait seconds (default 300), and
      print it decrypted. An approval starts a session.`,
  },
  cancel: {
    synopsis: 'cancel [<auth_request>]',
    about: 'Cancel the last request asked (or the one named).',
  },
} as const;
type Command = keyof typeof commands;

const { usageOf, commandList } = commandUsage('app', commands);

const help = `Usage: npm run app -- <command> [options]

Plays the application side of an approval as an organization (the local runtime's demo organization unless --org and
--key name another, e.g. one made with the admin CLI on a deployed stack): its key signs for the demo service and
decrypts the device's answer. What it creates is remembered in <data dir>/demo-application.json.

Commands:
${Object.values(commands)
  .map(({ synopsis, about }) => `  ${synopsis}\n      ${about}`)
  .join('\n')}

Options:
  --user <identifier>  The directory user (default: alice)
  --org <id>           The organization to act as (with --key; default: the local demo organization)
  --key <path>         Its private key PEM
  --base-url <url>     Service base URL (default: $BASE_URL, else http://127.0.0.1:$PORT, else the running
                       runtime recorded in the data directory, else http://127.0.0.1:8080)
  --data-dir <path>    The local runtime's data directory (default: $DATA_DIR or .data)
  --json               Print results as JSON
  -h, --help           Show this help

${exitCodesHelp}
An answer that is not an approval is still 0; a request that expired, was cancelled, is still pending when --wait
runs out, or that this application did not ask is 1.`;

const { values, positionals } = parseCommandLine(
  () =>
    parseArgs({
      allowPositionals: true,
      options: {
        user: { type: 'string', default: 'alice' },
        context: { type: 'string' },
        title: { type: 'string' },
        ttl: { type: 'string' },
        'denial-reasons': { type: 'boolean' },
        wait: { type: 'string', default: '300' },
        amount: { type: 'string' },
        types: { type: 'string' },
        fence: { type: 'string', multiple: true },
        clear: { type: 'boolean' },
        'base-url': { type: 'string' },
        'data-dir': { type: 'string' },
        org: { type: 'string' },
        key: { type: 'string' },
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
const [given, argument, ...extra] = positionals;
if (given === undefined) exitWith(usageFailure('Name a command.', commandList));
if (!Object.hasOwn(commands, given)) exitWith(usageFailure(`Unknown command "${given}".`, commandList));
const command = given as Command;
const usage = usageOf(command);
const takesId = command === 'answer' || command === 'cancel';
if (extra.length > 0 || (argument !== undefined && !takesId)) {
  exitWith(usageFailure(`Unexpected argument "${extra[0] ?? argument}".`, usage));
}
if (Boolean(values.org) !== Boolean(values.key))
  exitWith(usageFailure('--org and --key go together.', usage));

interface DemoApplication {
  directoryId: string;
  sdkKey: string;
  serviceId: string;
  lastAuthRequest?: string;
  /** The requests this application asked, newest last: the service answers 204 for an id it does not know. */
  asked?: string[];
}
/** How many asked ids the record keeps. */
const askedKept = 100;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const dataDir = dataDirectory(values['data-dir']);
const recordPath = join(dataDir, 'demo-application.json');
let api: ApiLocation | undefined;
let organizationKeyPem = '';
let client: ApiClient;

await runCommand(
  async () => {
    const organization =
      values.org && values.key
        ? { organizationId: values.org, privateKeyPath: values.key }
        : await readDemoOrganization(dataDir);
    if (!organization) throw noLocalRuntime(dataDir, '--org and --key');
    organizationKeyPem = await readKeyFile(organization.privateKeyPath, usage);
    api = await locateApi({ flag: values['base-url'], dataDir, usage });
    client = new ApiClient({
      baseUrl: api.baseUrl,
      issuer: `org:${organization.organizationId}`,
      privateKeyPem: organizationKeyPem,
    });
    switch (command) {
      case 'setup':
        return setup();
      case 'policy':
        return policy();
      case 'ask':
        return ask();
      case 'answer':
        return answer();
      case 'cancel':
        return cancel();
    }
  },
  () => api,
);

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
  // The web authenticator is served under the API's own base URL; on this machine at localhost, where passkeys work.
  const authenticatorUrl = `${webAuthenticatorUrl(api?.baseUrl ?? '')}#code=${started?.code}`;
  if (values.json) {
    console.log(JSON.stringify({ ...application, user: values.user, ...started, authenticatorUrl }, null, 2));
    return;
  }
  console.log(`Directory ${application.directoryId}, service ${application.serviceId}.`);
  console.log(`Device ${started?.device_id} of ${values.user} waits to link (QR image: ${started?.qrcode}).`);
  console.log(
    `Link it with:\n  npm run authenticator -- link --sdk-key ${application.sdkKey} --code ${started?.code}`,
  );
  console.log(`Or in a browser, open:\n  ${authenticatorUrl}`);
}

async function policy(): Promise<void> {
  const requested = requestedPolicy();
  const application = await readApplication();
  const directory = { subject: `dir:${application.directoryId}` };
  const serviceId = application.serviceId;
  if (requested === 'clear') {
    await client.call('DELETE', '/directory/v3/service/policy', {
      ...directory,
      body: { service_id: serviceId },
    });
  } else if (requested) {
    await client.call('PUT', '/directory/v3/service/policy', {
      ...directory,
      body: { service_id: serviceId, policy: requested },
    });
  }
  const current = await client.call<Record<string, unknown>>('POST', '/directory/v3/service/policy/item', {
    ...directory,
    body: { service_id: serviceId },
  });
  if (values.json) {
    console.log(JSON.stringify(current.body, null, 2));
    return;
  }
  console.log(`Policy of the demo service ${serviceId}: ${describePolicy(current.body ?? {})}`);
}

/** The policy the options ask for, 'clear', or undefined when they ask for none (the policy is only shown). */
function requestedPolicy(): Record<string, unknown> | 'clear' | undefined {
  const { amount, types, fence: fences = [], clear } = values;
  if (clear) {
    if (amount !== undefined || types !== undefined || fences.length > 0) {
      exitWith(usageFailure('--clear goes alone.', usage));
    }
    return 'clear';
  }
  if (amount !== undefined && types !== undefined) {
    exitWith(
      usageFailure(
        'Give --amount or --types, not both: a policy counts methods or names factor types.',
        usage,
      ),
    );
  }
  if (amount === undefined && types === undefined && fences.length === 0) return undefined;
  const flags = {
    fences: fences.map(readFence),
    deny_rooted_jailbroken: false,
    deny_emulator_simulator: false,
  };
  if (types !== undefined) {
    const factors = types.split(',').map((type) => type.trim().toUpperCase());
    for (const factor of factors) {
      if (!['KNOWLEDGE', 'INHERENCE', 'POSSESSION'].includes(factor)) {
        exitWith(
          usageFailure(
            `Unknown factor type "${factor.toLowerCase()}"; the types are knowledge, inherence, possession.`,
            usage,
          ),
        );
      }
    }
    return { type: 'FACTORS', factors, ...flags };
  }
  const count = Number(amount ?? 0);
  if (!Number.isInteger(count) || count < 0 || count > 5) {
    exitWith(usageFailure('--amount must be a whole number from 0 to 5.', usage));
  }
  return { type: 'METHOD_AMOUNT', amount: count, ...flags };
}

function readFence(text: string): Record<string, unknown> {
  const [latitude, longitude, radius, ...name] = text.split(',');
  const numbers = [latitude, longitude, radius].map((part) => (part?.trim() ? Number(part) : Number.NaN));
  const [lat, lon, metres] = numbers as [number, number, number];
  if (
    numbers.some((number) => !Number.isFinite(number)) ||
    Math.abs(lat) > 90 ||
    Math.abs(lon) > 180 ||
    metres <= 0
  ) {
    exitWith(
      usageFailure(
        `--fence ${text}: give <latitude>,<longitude>,<radius in metres>[,<name>], degrees within ±90 and ±180.`,
        usage,
      ),
    );
  }
  const fenceName = name.join(',').trim();
  return {
    type: 'GEO_CIRCLE',
    latitude: lat,
    longitude: lon,
    radius: metres,
    ...(fenceName ? { name: fenceName } : {}),
  };
}

/** A fence as `.../service/policy/item` prints it (docs/protocol.md#policies). */
interface PrintedFence {
  readonly type: 'GEO_CIRCLE' | 'TERRITORY';
  readonly name?: string;
  readonly latitude?: number;
  readonly longitude?: number;
  readonly radius?: number;
  readonly country?: string;
  readonly administrative_area?: string | null;
  readonly postal_code?: string | null;
}

/** One line for a policy as `.../service/policy/item` prints it. */
function describePolicy(policy: Record<string, unknown>): string {
  const fences = Array.isArray(policy.fences) ? (policy.fences as PrintedFence[]) : [];
  const where = fences
    .map((fence) =>
      fence.type === 'GEO_CIRCLE'
        ? `${fence.name ?? 'a circle'} (${fence.latitude},${fence.longitude}, ${fence.radius} m)`
        : `${fence.name ?? 'a territory'} (${[fence.country, fence.administrative_area, fence.postal_code].filter(Boolean).join(' ')})`,
    )
    .join(', ');
  const inside = where ? `; inside ${where}` : '';
  switch (policy.type) {
    case 'METHOD_AMOUNT': {
      const amount = Number(policy.amount);
      return `${amount} authentication method${amount === 1 ? '' : 's'}${inside}`;
    }
    case 'FACTORS':
      return `one method of each of ${(policy.factors as string[]).map((type) => type.toLowerCase()).join(', ')}${inside}`;
    default: {
      const requirements = policy.minimum_requirements;
      const factors = policy.factors;
      const blank =
        policy.type === 'LEGACY' &&
        Array.isArray(requirements) &&
        requirements.length === 0 &&
        Array.isArray(factors) &&
        factors.length === 0;
      return blank ? 'none (any device may answer)' : JSON.stringify(policy);
    }
  }
}

async function ask(): Promise<void> {
  const application = await readApplication();
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1)) {
    exitWith(usageFailure('--ttl must be a whole number of seconds.', usage));
  }
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
  const asked = [...askedBy(application), authRequest].slice(-askedKept);
  await saveApplication({ ...application, lastAuthRequest: authRequest, asked });
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
  const authRequest = namedRequest(application);
  const waitSeconds = Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
    exitWith(usageFailure('--wait must be a number of seconds.', usage));
  }
  // The service answers 204 both while a request is pending and for an id it does not know.
  if (!askedBy(application).includes(authRequest)) {
    throw refusal(`No auth request ${authRequest}: this application did not ask it.`);
  }
  const subject = `svc:${application.serviceId}`;
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    let response;
    try {
      response = await client.call<AuthorizationResponseBody>('GET', `/service/v3/auths/${authRequest}`, {
        subject,
      });
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 408) {
        throw refusal(`Auth request ${authRequest} expired unanswered.`);
      }
      if (error instanceof ApiRequestError && error.errorCode === 'SVC-007') {
        throw refusal(`Auth request ${authRequest} was cancelled.`);
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
      throw refusal(`Auth request ${authRequest} is still pending after ${waitSeconds} s.`);
    }
    await sleep(1000);
  }
}

async function cancel(): Promise<void> {
  const application = await readApplication();
  const authRequest = namedRequest(application);
  try {
    await client.call('DELETE', `/service/v3/auths/${authRequest}`, {
      subject: `svc:${application.serviceId}`,
    });
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) {
      throw refusal(`No pending auth request ${authRequest}.`);
    }
    throw error;
  }
  console.log(`Cancelled ${authRequest}.`);
}

/** The id on the command line, else the last request asked. */
function namedRequest(application: DemoApplication): string {
  const authRequest = argument ?? application.lastAuthRequest;
  if (!authRequest) exitWith(usageFailure(`${command} needs an auth request id (or ask first).`, usage));
  if (!uuidPattern.test(authRequest)) {
    exitWith(usageFailure(`"${authRequest}" is not an auth request id (a UUID).`, usage));
  }
  return authRequest.toLowerCase();
}

function askedBy(application: DemoApplication): string[] {
  return application.asked ?? (application.lastAuthRequest ? [application.lastAuthRequest] : []);
}

async function loadApplication(): Promise<DemoApplication | undefined> {
  try {
    return JSON.parse(await readFile(recordPath, 'utf8')) as DemoApplication;
  } catch {
    return undefined;
  }
}

async function readApplication(): Promise<DemoApplication> {
  const application = await loadApplication();
  if (!application) {
    throw usageFailure(`No demo application in ${dataDir}; run \`npm run app -- setup\` first.`, usage);
  }
  return application;
}

async function saveApplication(application: DemoApplication): Promise<void> {
  await writeFile(recordPath, `${JSON.stringify(application, null, 2)}\n`, { mode: 0o600 });
}
