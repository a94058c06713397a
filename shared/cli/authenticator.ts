import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  Authenticator,
  type LinkRequestView,
  linkAuthenticator,
  type PendingAuthRequestView,
  parseQrCodeUrl,
  type UserChoice,
} from '#shared/authenticator/authenticator';
import { describeChanges } from '#shared/authenticator/configuration-changes';
import { CodeNeededError } from '#shared/authenticator/denial-without-code';
import type { MethodSetup } from '#shared/authenticator/evaluate';
import { type AuthMethodName, authMethodNames } from '#shared/authenticator/methods';
import {
  type AuthenticatorState,
  type DeviceConfiguration,
  defaultConfiguration,
} from '#shared/authenticator/state';
import { readAuthenticatorState, writeAuthenticatorState } from '#shared/authenticator/state-file';
import {
  type ApiLocation,
  commandUsage,
  dataDirectory,
  exitCodesHelp,
  exitWith,
  locateApi,
  parseCommandLine,
  refusal,
  runCommand,
  usageFailure,
} from '#shared/cli/common';

/** Each command's synopsis and what it does, for its usage line and the help. */
const commands = {
  link: {
    synopsis: 'link --sdk-key <key> (--code <code> | --qrcode <url>) [--name <name>] [--force]',
    about: `Link this device with a directory SDK key and the code (or the qrcode URL) of POST /directory/v3/devices.`,
  },
  status: {
    synopsis: 'status',
    about: `Show how this device's link stands: linked, or waiting for one of the user's linked devices to confirm it
      (and until when), or cooling off after an unlink.`,
  },
  pending: {
    synopsis: 'pending',
    about: `Show the request this device may answer now, and the user's new devices waiting for this device to
      confirm them.`,
  },
  confirm: {
    synopsis: 'confirm [<device_id>]',
    about: `Approve a new device that wants to join (the only one waiting, or the one named): it is linked, and the
      directory gets its device link completion webhook. Approve only a device you are adding yourself.`,
  },
  refuse: {
    synopsis: 'refuse [<device_id>]',
    about: 'Refuse a new device that wants to join: it is gone, and can never answer.',
  },
  approve: {
    synopsis: 'approve [<auth_request>] [--code <code>]',
    about: `Approve the pending request (or the one named). The policy decides what is actually sent: a device that
      cannot meet it answers FAILED with the reason. A request with number matching needs --code, the code the
      application shows; the service refuses a wrong one and ends the request after 3.`,
  },
  deny: {
    synopsis: 'deny [<auth_request>] [--reason <id>] [--code <code>]',
    about: `Deny it, with one of the request's denial reasons (its fraud flag makes the answer FRAUDULENT) or none. A
      request with number matching is denied without --code: the denial goes in the clear and the service writes it.`,
  },
  watch: {
    synopsis: 'watch',
    about: `Receive pushes as a browser would: register a Web Push subscription whose endpoint is a loopback receiver
      of this process, decrypt each push with its own keys, show each request the moment it arrives and say when it
      ends. Ctrl-C removes the subscription. Works against a local runtime (whose address guard allows loopback).`,
  },
  sessions: { synopsis: 'sessions', about: 'List the services the user has sessions with.' },
  logout: {
    synopsis: 'logout --service <id>',
    about: 'End the session with a service; the service gets a Session Ended webhook.',
  },
  unlink: { synopsis: 'unlink', about: 'Unlink this device and delete its state file.' },
  configure: {
    synopsis: 'configure [--reset] [options] [--json]',
    about: `Change what the device has and print each setting that changed, one a line (--json: the whole
      configuration). --reset first goes back to a phone fresh from setup (a PIN and a fingerprint that verify,
      nothing failing, no location, not busy), as after the README's policy demo. Lists are comma-separated
      method names, or "none":
        --methods <list>         methods the user set up (the others are known but not set)
        --failing <list>         methods whose verification fails (a wrong PIN, an unknown finger)
        --not-allowed <list>     methods the app does not allow
        --unsupported <list>     methods the device does not support
        --no-permission <list>   methods whose OS permission is not granted
        --user-required <list>   methods the user wants on every request
        --location <lat,lon|none>             current position, for geofences
        --territory <CC[,CC-AA[,postal]]|none> current country, region and postal code
        --rooted <yes|no>  --emulator <yes|no>  --busy-local <yes|no>
      Methods: ${authMethodNames.join(', ')}.`,
  },
} as const;
type Command = keyof typeof commands;

const { usageOf, commandList } = commandUsage('authenticator', commands);

const help = `Usage: npm run authenticator -- <command> [options]

The reference authenticator: plays a user's device. It keeps its private key, its configuration and a FIFO of up
to five PINs per service in a state file (mode 0600), evaluates each request's policy against the methods it is
configured with, and answers with packages encrypted to the requester.

Commands:
${Object.values(commands)
  .map(({ synopsis, about }) => `  ${synopsis}\n      ${about}`)
  .join('\n')}

Options:
  --state <file>     State file (default: $AUTHENTICATOR_STATE or <data dir>/authenticator.json)
  --data-dir <path>  The local runtime's data directory (default: $DATA_DIR or .data)
  --base-url <url>   Service base URL (default: $BASE_URL; a device linked to this machine follows
                     http://127.0.0.1:$PORT, else the running runtime recorded in the data directory, else the URL
                     it was linked with; link's default ends with http://127.0.0.1:8080)
  --name <name>      Device name shown in the directory's device list (link)
  --force            link over an existing state file
  --json             Print results as JSON
  -h, --help         Show this help

${exitCodesHelp}
Nothing to answer, or a request that is not pending for this device, is 1.`;

const { values, positionals } = parseCommandLine(
  () =>
    parseArgs({
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
        reset: { type: 'boolean' },
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
const takesArgument =
  command === 'approve' ||
  command === 'deny' ||
  command === 'logout' ||
  command === 'confirm' ||
  command === 'refuse';
if (extra.length > 0 || (argument !== undefined && !takesArgument)) {
  exitWith(usageFailure(`Unexpected argument "${extra[0] ?? argument}".`, usage));
}

const dataDir = dataDirectory(values['data-dir']);
const statePath = resolve(
  values.state ?? process.env.AUTHENTICATOR_STATE ?? join(dataDir, 'authenticator.json'),
);
let api: ApiLocation | undefined;

await runCommand(run, () => api);

async function run(): Promise<void> {
  switch (command) {
    case 'link':
      return link();
    case 'status':
      return status();
    case 'pending': {
      const authenticator = await device();
      const [requests, joining] = await Promise.all([authenticator.pending(), authenticator.linkRequests()]);
      // As before for scripts: --json prints the requests; the new devices waiting are `status`'s and the text's.
      if (values.json) return print(requests);
      if (requests.length === 0 && joining.length === 0) console.log('Nothing to answer.');
      for (const request of requests) console.log(describe(request));
      for (const request of joining) console.log(describeLinkRequest(request));
      return;
    }
    case 'confirm':
    case 'refuse':
      return answerLinkRequest(command === 'confirm');
    case 'approve':
      return answer({ approve: true, ...typedCode() });
    case 'deny':
      return answer({
        approve: false,
        ...(values.reason ? { denialReason: values.reason } : {}),
        ...typedCode(),
      });
    case 'watch':
      return watch();
    case 'sessions': {
      const sessions = await (await device()).sessions();
      if (values.json) return print(sessions);
      if (sessions.length === 0) console.log('No sessions.');
      for (const session of sessions) {
        console.log(`${session.service_name} (${session.service_id}) since ${session.date_created}`);
      }
      return;
    }
    case 'logout': {
      const serviceId = values.service ?? argument;
      if (!serviceId) throw usageFailure('logout needs --service <id>.', usage);
      await (await device()).logout(serviceId);
      console.log(`Logged out of ${serviceId}.`);
      return;
    }
    case 'unlink': {
      await (await device()).unlink();
      await rm(statePath, { force: true });
      console.log('Unlinked; the state file is deleted.');
      return;
    }
    case 'configure':
      return configure();
  }
}

/** Shows requests as their pushes arrive, until Ctrl-C. */
async function watch(): Promise<void> {
  const authenticator = await device();
  const { watchPushes } = await import('#shared/cli/push-watch');
  const watching = await watchPushes(authenticator, {
    onPush(push) {
      if (push.type === 'device_link_request') {
        console.log(`${push.title}: ${push.body}`);
        authenticator.linkRequests().then(
          (waiting) => {
            for (const request of waiting.filter((each) => each.device_id === push.device_id))
              console.log(values.json ? JSON.stringify(request) : describeLinkRequest(request));
          },
          (error: unknown) => console.error(`Could not read the new device: ${(error as Error).message}`),
        );
        return;
      }
      if (push.type === 'auth_request_ended') {
        console.log(`${push.auth_request}: ${push.body}`);
        return;
      }
      console.log(`${push.title}: ${push.body}`);
      authenticator.pending().then(
        (requests) => {
          for (const request of requests.filter((each) => each.auth_request === push.auth_request)) {
            console.log(values.json ? JSON.stringify(request) : describe(request));
          }
        },
        (error: unknown) => console.error(`Could not read ${push.auth_request}: ${(error as Error).message}`),
      );
    },
    onRejected(reason) {
      console.error(`Refused a push: ${reason}`);
    },
  });
  console.log(`Watching for pushes at ${watching.endpoint} (Ctrl-C to stop).`);
  await new Promise<void>((resolve) => process.once('SIGINT', resolve));
  await watching.stop();
  console.log('Stopped; the push subscription is removed.');
}

/**
 * The linked device, talking to where the API is now: a local runtime may have come back on another port since the
 * link, and its record says which.
 */
async function device(): Promise<Authenticator> {
  const state = await readAuthenticatorState(statePath);
  api = await locateApi({
    flag: values['base-url'],
    dataDir,
    linked: { baseUrl: state.baseUrl, statePath },
    usage,
  });
  return new Authenticator({ ...state, baseUrl: api.baseUrl });
}

async function link(): Promise<void> {
  if (!values['sdk-key']) throw usageFailure('link needs --sdk-key.', usage);
  let code = values.code;
  let baseUrl: string | undefined;
  if (values.qrcode) {
    try {
      ({ baseUrl, code } = parseQrCodeUrl(values.qrcode));
    } catch (error) {
      throw usageFailure(`${(error as Error).message}.`, usage);
    }
    api = { baseUrl, source: '--qrcode' };
  }
  if (!code) throw usageFailure('link needs --code or --qrcode.', usage);
  if (!values.force) {
    const existing = await readAuthenticatorState(statePath).catch(() => undefined);
    if (existing) {
      throw usageFailure(
        `${statePath} already holds device ${existing.deviceId}; unlink it or pass --force.`,
        usage,
      );
    }
  }
  api ??= await locateApi({ flag: values['base-url'], dataDir, usage });
  const state = await linkAuthenticator({
    baseUrl: api.baseUrl,
    sdkKey: values['sdk-key'],
    code,
    name: values.name ?? 'Reference authenticator',
    type: 'CLI',
  });
  await writeAuthenticatorState(statePath, state);
  const linked = await new Authenticator(state).linkState();
  if (values.json) return print({ ...linked, state: statePath });
  if (linked.status === 'awaiting-confirmation') {
    console.log(
      `Device ${state.deviceId} of directory ${state.directoryId} is waiting for one of your linked devices to confirm it, until ${linked.expires}; state in ${statePath}. See \`status\`.`,
    );
    return;
  }
  console.log(`Linked device ${state.deviceId} of directory ${state.directoryId}; state in ${statePath}.`);
  if (linked.answers_from) console.log(coolingOff(linked.answers_from));
}

/** What `status` says of this device's own link. */
async function status(): Promise<void> {
  const linked = await (await device()).linkState();
  if (values.json) return print(linked);
  if (linked.status === 'awaiting-confirmation')
    console.log(`Waiting for one of your linked devices to confirm this one, until ${linked.expires}.`);
  else if (linked.status === 'expired')
    console.log(`Nobody confirmed this device by ${linked.expires}: it will not link. Link it again.`);
  else
    console.log(
      linked.answers_from ? coolingOff(linked.answers_from) : `Linked (device ${linked.device_id}).`,
    );
}

function coolingOff(answersFrom: string): string {
  return `Linked, but this user's devices were unlinked lately: this device answers requests from ${answersFrom} (or once the operator confirms it).`;
}

/** Approves or refuses the one new device waiting, or the one named. */
async function answerLinkRequest(approve: boolean): Promise<void> {
  const authenticator = await device();
  const waiting = await authenticator.linkRequests();
  if (argument === undefined && waiting.length > 1) {
    const ids = waiting.map((request) => request.device_id).join(', ');
    throw usageFailure(`Several new devices are waiting (${ids}): name one.`, usage);
  }
  const request = argument
    ? waiting.find((candidate) => candidate.device_id === argument.toLowerCase())
    : waiting[0];
  if (!request) {
    throw refusal(argument ? `No new device ${argument} waits for this device.` : 'No new device waits.');
  }
  await authenticator.answerLinkRequest(request.device_id, approve);
  if (values.json) return print({ device_id: request.device_id, approved: approve });
  console.log(`${approve ? 'Approved' : 'Refused'} ${deviceLabel(request)} (${request.device_id}).`);
}

function deviceLabel(request: LinkRequestView): string {
  return request.name ?? request.type ?? 'an unnamed device';
}

function describeLinkRequest(request: LinkRequestView): string {
  return [
    `A new device wants to join: ${deviceLabel(request)}${request.type && request.name ? ` (${request.type})` : ''}, ${request.directory.name}, ${request.requested}`,
    `  device: ${request.device_id}, until ${request.expires}`,
    `  approve: confirm ${request.device_id}    refuse: refuse ${request.device_id}`,
  ].join('\n');
}

/** The number-matching code the user typed (`--code`), which the service checks before it accepts the answer. */
function typedCode(): { numberMatchCode?: string } {
  return values.code === undefined ? {} : { numberMatchCode: values.code };
}

async function answer(choice: UserChoice): Promise<void> {
  const authenticator = await device();
  const requests = await authenticator.pending();
  if (argument === undefined && requests.length > 1) {
    const ids = requests.map((request) => request.auth_request).join(', ');
    throw usageFailure(`Several requests are pending (${ids}): name one.`, usage);
  }
  const request = argument
    ? requests.find((candidate) => candidate.auth_request === argument.toLowerCase())
    : requests[0];
  if (!request) {
    throw refusal(argument ? `No pending auth request ${argument} for this device.` : 'Nothing to answer.');
  }
  const reasons = request.denial_reasons ?? [];
  if (!choice.approve && choice.denialReason !== undefined) {
    const offered = reasons.map((reason) => reason.id);
    if (!offered.includes(choice.denialReason)) {
      throw usageFailure(
        `The request offers no denial reason "${choice.denialReason}"${offered.length > 0 ? ` (it offers ${offered.join(', ')})` : ''}.`,
        usage,
      );
    }
  }
  if (request.number_match && choice.approve && choice.numberMatchCode === undefined) {
    throw usageFailure(
      'Approving this request needs the code the application shows: pass it with --code. If you did not start this sign-in, deny it (no code needed).',
      usage,
    );
  }
  const answered = await authenticator.answer(request, choice).catch((error: unknown) => {
    if (error instanceof CodeNeededError)
      throw refusal(`${error.message} Send it sealed with --code, or leave the request to expire.`);
    throw error;
  });
  // The state keeps the URL the device was linked with; only this run followed the runtime elsewhere.
  const stored = await readAuthenticatorState(statePath);
  await writeAuthenticatorState(statePath, { ...answered.state, baseUrl: stored.baseUrl });
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
  const configuration = reconfigure(values.reset ? defaultConfiguration : state.configuration);
  const next: AuthenticatorState = { ...state, configuration };
  await writeAuthenticatorState(statePath, next);
  if (values.json) return print(configuration);
  const changes = describeChanges(state.configuration, configuration);
  console.log(changes.length > 0 ? changes.join('\n') : 'Nothing changed.');
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
        exitWith(usageFailure('--location must be <latitude>,<longitude> in degrees, or none.', usage));
      }
      next.location = { latitude: latitude as number, longitude: longitude as number };
    }
  }
  if (values.territory !== undefined) {
    if (values.territory === 'none') delete next.territory;
    else {
      const [country, administrativeArea, postalCode] = values.territory.split(',');
      if (!country || !/^[A-Z]{2}$/.test(country))
        exitWith(usageFailure('--territory starts with a two-letter country code.', usage));
      next.territory = {
        country,
        ...(administrativeArea ? { administrativeArea } : {}),
        ...(postalCode ? { postalCode } : {}),
      };
    }
  }
  const yesNo = (option: string | undefined, name: string) => {
    if (option === undefined) return undefined;
    if (option !== 'yes' && option !== 'no') exitWith(usageFailure(`--${name} must be yes or no.`, usage));
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
      exitWith(
        usageFailure(`Unknown method "${name}"; the methods are ${authMethodNames.join(', ')}.`, usage),
      );
    }
  }
  return new Set(names as AuthMethodName[]);
}

function describe(request: PendingAuthRequestView): string {
  const lines = [
    `Request ${request.auth_request} from ${request.service.name} (${request.service.id})`,
    ...(request.title ? [`  title:   ${request.title}`] : []),
    ...(request.context ? [`  context: ${request.context}`] : []),
    `  expires: ${request.expires}`,
    ...(request.number_match
      ? ['  number matching: approve --code <the code the application shows>; deny needs no code']
      : []),
  ];
  for (const reason of request.denial_reasons ?? []) {
    lines.push(`  deny --reason ${reason.id}: ${reason.reason}${reason.fraud ? ' (fraud)' : ''}`);
  }
  return lines.join('\n');
}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
