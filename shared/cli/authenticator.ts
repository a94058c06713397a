import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Authenticator,
  linkAuthenticator,
  type PendingAuthRequestView,
  parseQrCodeUrl,
  type UserChoice,
} from '#shared/authenticator/authenticator';
import type { MethodSetup } from '#shared/authenticator/evaluate';
import { type AuthMethodName, authMethodNames } from '#shared/authenticator/methods';
import {
  type AuthenticatorState,
  type DeviceConfiguration,
  readAuthenticatorState,
  writeAuthenticatorState,
} from '#shared/authenticator/state';
import { defaultBaseUrl, defaultDataDir } from '#shared/cli/local-defaults';
import { ApiRequestError } from '#shared/client/errors';

const help = `Usage: npm run authenticator -- <command> [options]

The reference authenticator: plays a user's device. It keeps its private key, its configuration and a FIFO of up
to five PINs per service in a state file (mode 0600), evaluates each request's policy against the methods it is
configured with, and answers with packages encrypted to the requester.

Commands:
  link --sdk-key <key> --code <code> [--base-url <url>]
  link --sdk-key <key> --qrcode <url>
      Link this device with a directory SDK key and the code (or the qrcode URL) of POST /directory/v3/devices.
  pending
      Show the request this device may answer now.
  approve [<auth_request>]
      Approve the pending request (or the one named). The policy decides what is actually sent: a device that
      cannot meet it answers FAILED with the reason.
  deny [<auth_request>] [--reason <id>]
      Deny it, with one of the request's denial reasons (its fraud flag makes the answer FRAUDULENT) or none.
  sessions
      List the services the user has sessions with.
  logout --service <id>
      End the session with a service; the service gets a Session Ended webhook.
  unlink
      Unlink this device and delete its state file.
  configure [options]
      Change and show what the device has. Lists are comma-separated method names, or "none":
        --methods <list>         methods the user set up (the others are known but not set)
        --failing <list>         methods whose verification fails (a wrong PIN, an unknown finger)
        --not-allowed <list>     methods the app does not allow
        --unsupported <list>     methods the device does not support
        --no-permission <list>   methods whose OS permission is not granted
        --user-required <list>   methods the user wants on every request
        --location <lat,lon|none>             current position, for geofences
        --territory <CC[,CC-AA[,postal]]|none> current country, region and postal code
        --rooted <yes|no>  --emulator <yes|no>  --busy-local <yes|no>
      Methods: ${authMethodNames.join(', ')}.

Options:
  --state <file>     State file (default: $AUTHENTICATOR_STATE or <data dir>/authenticator.json)
  --data-dir <path>  Data directory for the default state file (default: $DATA_DIR or .data)
  --base-url <url>   Service base URL for link (default: $BASE_URL or http://127.0.0.1:$PORT, port 8080)
  --name <name>      Device name shown in the directory's device list (link)
  --force            link over an existing state file
  --json             Print results as JSON
  -h, --help         Show this help

Exit status: 0 on success, 1 when the service refuses, 2 on bad usage.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    state: { type: 'string' },
    'data-dir': { type: 'string' },
    'base-url': { type: 'string' },
    'sdk-key': { type: 'string' },
    code: { type: 'string' },
    qrcode: { type: 'string' },
    name: { type: 'string' },
    force: { type: 'boolean' },
    reason: { type: 'string' },
    service: { type: 'string' },
    methods: { type: 'string' },
    failing: { type: 'string' },
    'not-allowed': { type: 'string' },
    unsupported: { type: 'string' },
    'no-permission': { type: 'string' },
    'user-required': { type: 'string' },
    location: { type: 'string' },
    territory: { type: 'string' },
    rooted: { type: 'string' },
    emulator: { type: 'string' },
    'busy-local': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help || positionals.length === 0) {
  console.log(help);
  process.exit(values.help ? 0 : 2);
}

const [command, argument] = positionals;
const statePath =
  values.state ??
  process.env.AUTHENTICATOR_STATE ??
  join(defaultDataDir(values['data-dir']), 'authenticator.json');

try {
  await run();
} catch (error) {
  if (error instanceof ApiRequestError) {
    console.error(`Refused: ${error.message}`);
  } else {
    console.error(error instanceof Error ? error.message : error);
  }
  process.exitCode = 1;
}

async function run(): Promise<void> {
  switch (command) {
    case 'link':
      return link();
    case 'pending': {
      const requests = await device(await readAuthenticatorState(statePath)).pending();
      if (values.json) return print(requests);
      if (requests.length === 0) console.log('Nothing to answer.');
      for (const request of requests) console.log(describe(request));
      return;
    }
    case 'approve':
      return answer({ approve: true });
    case 'deny':
      return answer({ approve: false, ...(values.reason ? { denialReason: values.reason } : {}) });
    case 'sessions': {
      const sessions = await device(await readAuthenticatorState(statePath)).sessions();
      if (values.json) return print(sessions);
      if (sessions.length === 0) console.log('No sessions.');
      for (const session of sessions) {
        console.log(`${session.service_name} (${session.service_id}) since ${session.date_created}`);
      }
      return;
    }
    case 'logout': {
      const serviceId = values.service ?? argument;
      if (!serviceId) usage('logout needs --service <id>.');
      await device(await readAuthenticatorState(statePath)).logout(serviceId);
      console.log(`Logged out of ${serviceId}.`);
      return;
    }
    case 'unlink': {
      await device(await readAuthenticatorState(statePath)).unlink();
      await rm(statePath, { force: true });
      console.log('Unlinked; the state file is deleted.');
      return;
    }
    case 'configure':
      return configure();
    default:
      usage(`Unknown command "${command}".`);
  }
}

async function link(): Promise<void> {
  if (!values['sdk-key']) usage('link needs --sdk-key.');
  let baseUrl = defaultBaseUrl(values['base-url']);
  let code = values.code;
  if (values.qrcode) ({ baseUrl, code } = parseQrCodeUrl(values.qrcode));
  if (!code) usage('link needs --code or --qrcode.');
  if (!values.force) {
    const existing = await readAuthenticatorState(statePath).catch(() => undefined);
    if (existing) usage(`${statePath} already holds device ${existing.deviceId}; unlink it or pass --force.`);
  }
  const state = await linkAuthenticator({
    baseUrl,
    sdkKey: values['sdk-key'],
    code,
    name: values.name ?? 'Reference authenticator',
    type: 'CLI',
  });
  await writeAuthenticatorState(statePath, state);
  if (values.json)
    return print({ device_id: state.deviceId, directory_id: state.directoryId, state: statePath });
  console.log(`Linked device ${state.deviceId} of directory ${state.directoryId}; state in ${statePath}.`);
}

async function answer(choice: UserChoice): Promise<void> {
  const state = await readAuthenticatorState(statePath);
  const authenticator = device(state);
  const requests = await authenticator.pending();
  const request = argument
    ? requests.find((candidate) => candidate.auth_request === argument)
    : requests.length === 1
      ? requests[0]
      : undefined;
  if (!request) {
    throw new Error(argument ? `Request ${argument} is not pending for this device.` : 'Nothing to answer.');
  }
  const answered = await authenticator.answer(request, choice);
  await writeAuthenticatorState(statePath, answered.state);
  const { type, reason, denialReason, authMethods } = answered.evaluation;
  if (values.json) return print({ auth_request: request.auth_request, ...answered.evaluation });
  console.log(
    `Answered ${request.auth_request}: ${type}/${reason}${denialReason ? ` (denial reason ${denialReason})` : ''}`,
  );
  const ran = authMethods.filter((method) => method.passed !== null);
  if (ran.length > 0) {
    console.log(
      `Methods verified: ${ran.map((method) => `${String(method.method)} ${method.passed ? 'passed' : 'failed'}`).join(', ')}`,
    );
  }
}

async function configure(): Promise<void> {
  const state = await readAuthenticatorState(statePath);
  const configuration = reconfigure(state.configuration);
  const next: AuthenticatorState = { ...state, configuration };
  await writeAuthenticatorState(statePath, next);
  print(configuration);
}

function reconfigure(current: DeviceConfiguration): DeviceConfiguration {
  const methods: Partial<Record<AuthMethodName, MethodSetup>> = { ...current.methods };
  const flag = (option: string | undefined, apply: (setup: MethodSetup, listed: boolean) => MethodSetup) => {
    if (option === undefined) return;
    const listed = methodList(option);
    for (const name of authMethodNames) {
      methods[name] = apply(methods[name] ?? { set: false }, listed.has(name));
    }
  };
  flag(values.methods, (setup, listed) => ({ ...setup, set: listed }));
  flag(values.failing, (setup, listed) => ({ ...setup, verifies: !listed }));
  flag(values['not-allowed'], (setup, listed) => ({ ...setup, allowed: !listed }));
  flag(values.unsupported, (setup, listed) => ({ ...setup, supported: !listed }));
  flag(values['no-permission'], (setup, listed) => ({ ...setup, permission: !listed }));
  flag(values['user-required'], (setup, listed) => ({ ...setup, userRequired: listed }));

  const next: { -readonly [K in keyof DeviceConfiguration]: DeviceConfiguration[K] } = {
    ...current,
    methods,
  };
  if (values.location !== undefined) {
    if (values.location === 'none') delete next.location;
    else {
      const [latitude, longitude, extra] = values.location.split(',').map(Number);
      if (
        extra !== undefined ||
        !Number.isFinite(latitude) ||
        !Number.isFinite(longitude) ||
        Math.abs(latitude ?? 0) > 90 ||
        Math.abs(longitude ?? 0) > 180
      ) {
        usage('--location must be <latitude>,<longitude> in degrees, or none.');
      }
      next.location = { latitude: latitude as number, longitude: longitude as number };
    }
  }
  if (values.territory !== undefined) {
    if (values.territory === 'none') delete next.territory;
    else {
      const [country, administrativeArea, postalCode] = values.territory.split(',');
      if (!country || !/^[A-Z]{2}$/.test(country))
        usage('--territory starts with a two-letter country code.');
      next.territory = {
        country,
        ...(administrativeArea ? { administrativeArea } : {}),
        ...(postalCode ? { postalCode } : {}),
      };
    }
  }
  const yesNo = (option: string | undefined, name: string) => {
    if (option === undefined) return undefined;
    if (option !== 'yes' && option !== 'no') usage(`--${name} must be yes or no.`);
    return option === 'yes';
  };
  const rooted = yesNo(values.rooted, 'rooted');
  if (rooted !== undefined) next.rootedOrJailbroken = rooted;
  const emulator = yesNo(values.emulator, 'emulator');
  if (emulator !== undefined) next.emulator = emulator;
  const busyLocal = yesNo(values['busy-local'], 'busy-local');
  if (busyLocal !== undefined) next.busyLocal = busyLocal;
  return next;
}

function methodList(option: string): Set<AuthMethodName> {
  if (option === 'none') return new Set();
  const names = option.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(authMethodNames as readonly string[]).includes(name)) {
      usage(`Unknown method "${name}"; the methods are ${authMethodNames.join(', ')}.`);
    }
  }
  return new Set(names as AuthMethodName[]);
}

function device(state: AuthenticatorState): Authenticator {
  return new Authenticator(state);
}

function describe(request: PendingAuthRequestView): string {
  const lines = [
    `Request ${request.auth_request} from ${request.service.name} (${request.service.id})`,
    ...(request.title ? [`  title:   ${request.title}`] : []),
    ...(request.context ? [`  context: ${request.context}`] : []),
    `  expires: ${request.expires}`,
  ];
  for (const reason of request.denial_reasons ?? []) {
    lines.push(`  deny --reason ${reason.id}: ${reason.reason}${reason.fraud ? ' (fraud)' : ''}`);
  }
  return lines.join('\n');
}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

function usage(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}
