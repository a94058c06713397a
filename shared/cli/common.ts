import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runningRuntime, runtimeRecordPath } from '#infra/local/runtime-record';
import { ApiRequestError, ResponseVerificationError } from '#shared/client/errors';

/**
 * What the four CLIs share: where the API is, and how an expected failure reads (one line) and ends (its exit
 * code). Unexpected errors keep their stack trace: they are bugs to report.
 */

/** 0 is success; the rest is documented in every CLI's help. */
export const exitCodes = { refused: 1, usage: 2, unreachable: 3 } as const;

export const exitCodesHelp =
  'Exit status: 0 success, 1 the API refused, 2 bad usage, 3 no API answers (nothing there, or not this API).';

/** An expected failure: printed as one line (and, for bad usage, the usage of the command), then the process exits. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';

  constructor(
    message: string,
    readonly exitCode: number,
    /** Printed after the message: the usage of the command that was misused. */
    readonly usage?: string,
  ) {
    super(message);
  }
}

/**
 * The usage lines of a CLI with commands: one command's synopsis, and the list of its commands, each pointing at the
 * full help.
 */
export function commandUsage<C extends string>(
  cli: string,
  commands: Readonly<Record<C, { synopsis: string }>>,
) {
  const fullHelp = `(npm run ${cli} -- --help for every command and option)`;
  return {
    usageOf: (command: C) => `Usage: npm run ${cli} -- ${commands[command].synopsis}\n${fullHelp}`,
    commandList: `Usage: npm run ${cli} -- <command> [options]; commands: ${Object.keys(commands).join(', ')}\n${fullHelp}`,
  };
}

export function usageFailure(message: string, usage: string): CliFailure {
  return new CliFailure(message, exitCodes.usage, usage);
}

export function refusal(message: string): CliFailure {
  return new CliFailure(message, exitCodes.refused);
}

/** Prints a failure as the CLIs do and ends the process with its code. */
export function exitWith(failure: CliFailure): never {
  console.error(failure.usage ? `${failure.message}\n\n${failure.usage}` : failure.message);
  process.exit(failure.exitCode);
}

/** Runs `parse` (node:util's parseArgs), turning an unknown option or a missing value into bad usage. */
export function parseCommandLine<T>(parse: () => T, usage: string): T {
  try {
    return parse();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      exitWith(usageFailure((error as Error).message, usage));
    }
    throw error;
  }
}

/** The local data directory: --data-dir, else $DATA_DIR, else .data (npm runs scripts from the project root). */
export function dataDirectory(given?: string): string {
  return resolve(given ?? process.env.DATA_DIR ?? '.data');
}

/** A base URL and where it was found, for the message that says where the CLI looked when nothing answers. */
export interface ApiLocation {
  readonly baseUrl: string;
  readonly source: string;
}

/**
 * Where the API is: --base-url, else $BASE_URL, else $PORT on this machine, else the runtime recorded in the data
 * directory (`npm start` writes runtime.json there while it runs), else http://127.0.0.1:8080. A device linked
 * elsewhere than this machine keeps its own URL unless --base-url or $BASE_URL says otherwise; one linked to a local
 * runtime follows $PORT and the record, as the runtime may come back on another port.
 */
export async function locateApi(options: {
  readonly flag?: string | undefined;
  readonly dataDir: string;
  readonly linked?: { readonly baseUrl: string; readonly statePath: string };
  readonly usage: string;
}): Promise<ApiLocation> {
  if (options.flag)
    return { baseUrl: checkedUrl(options.flag, '--base-url', options.usage), source: '--base-url' };
  const fromEnvironment = process.env.BASE_URL;
  if (fromEnvironment)
    return { baseUrl: checkedUrl(fromEnvironment, 'BASE_URL', options.usage), source: 'BASE_URL' };
  const linked = options.linked;
  const linkedSource = linked && `the URL the device was linked with, in ${linked.statePath}`;
  if (linked && !isLoopback(linked.baseUrl))
    return { baseUrl: linked.baseUrl, source: linkedSource as string };
  const port = process.env.PORT;
  // PORT=0 asks `npm start` for any free port: only the record knows which.
  if (port && port !== '0') {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
      throw usageFailure(`PORT=${port} is not a port number.`, options.usage);
    }
    return { baseUrl: `http://127.0.0.1:${port}`, source: `PORT=${port}` };
  }
  const record = runtimeRecordPath(options.dataDir);
  const running = await runningRuntime(options.dataDir);
  if (running) return { baseUrl: running.baseUrl, source: `the runtime recorded in ${record}` };
  const none = `no running runtime recorded in ${record}`;
  if (linked) return { baseUrl: linked.baseUrl, source: `${linkedSource}; ${none}` };
  return { baseUrl: 'http://127.0.0.1:8080', source: `the default; ${none}` };
}

function checkedUrl(url: string, name: string, usage: string): string {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw usageFailure(`${name} ${url} is not an http(s) URL.`, usage);
  }
  return url;
}

function isLoopback(url: string): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname : '';
  return host === 'localhost' || host === '[::1]' || host === '0.0.0.0' || host.startsWith('127.');
}

/** The demo organization `npm start` writes into its data directory; undefined until it has run once there. */
export async function readDemoOrganization(
  dataDir: string,
): Promise<{ organizationId: string; privateKeyPath: string } | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, 'demo-organization.json'), 'utf8')) as {
      organizationId: string;
      privateKeyPath: string;
    };
  } catch {
    return undefined;
  }
}

/** No demo organization: no local runtime has made this data directory, so there is nothing to talk to. */
export function noLocalRuntime(dataDir: string, otherwise: string): CliFailure {
  return new CliFailure(
    `No demo organization in ${dataDir} (no local runtime has run there): start one with \`npm start\`, or pass the --data-dir it uses, or ${otherwise}.`,
    exitCodes.unreachable,
  );
}

/** A private key file the user named, or a one-line failure saying why it cannot be read. */
export async function readKeyFile(path: string, usage: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw usageFailure(
      `Cannot read the key ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      usage,
    );
  }
}

/**
 * The one line an expected failure prints, with its exit code; undefined for an unexpected error. `api` is where the
 * CLI was talking to, for the message when nothing answers there.
 */
export function explain(error: unknown, api: ApiLocation | undefined): CliFailure | undefined {
  if (error instanceof CliFailure) return error;
  if (isUnreachable(error)) {
    const where = api ? `${api.baseUrl} (${api.source})` : 'the API';
    const hint = api && !isLoopback(api.baseUrl) ? '' : ' — start it with `npm start`';
    return new CliFailure(`No API answers at ${where}${hint}`, exitCodes.unreachable);
  }
  if (error instanceof ApiRequestError) {
    // ApiClient's clock check: a server that has no ping is not this API.
    if (error.errorCode === undefined && error.errorDetail === 'ping failed') {
      return notThisApi(api, `GET /public/v3/ping answered ${error.status}`);
    }
    return refusal(`Refused: ${error.message}`);
  }
  if (error instanceof ResponseVerificationError) {
    // An answer without a signature comes from something other than this API's handlers: a wrong URL or path.
    return error.reason === 'missing-jwt' || error.reason === 'api-key' || error.reason === 'not-this-api'
      ? notThisApi(api, error.message)
      : refusal(`The answer does not verify: ${error.message}`);
  }
  if ((error as { name?: unknown }).name === 'AuthenticatorStateError') {
    return new CliFailure((error as Error).message, exitCodes.usage);
  }
  return undefined;
}

/**
 * Something answers there, but not as this API (no ping, HTML, an unsigned answer): for the user it is the same as
 * no API answering, so the same exit code, with what did answer.
 */
function notThisApi(api: ApiLocation | undefined, what: string): CliFailure {
  return new CliFailure(
    `${api ? `${api.baseUrl} (${api.source})` : 'The server'} did not answer as this API: ${what}`,
    exitCodes.unreachable,
  );
}

/** A connection that could not be made or was dropped: fetch reports it as a TypeError with the socket's cause. */
function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
}

/**
 * Runs a CLI's work: an expected failure prints one line and sets its exit code, an unexpected one its stack trace
 * with exit code 1.
 */
export async function runCommand(
  work: () => Promise<void>,
  api: () => ApiLocation | undefined,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    const failure = explain(error, api());
    if (!failure) throw error;
    console.error(failure.usage ? `${failure.message}\n\n${failure.usage}` : failure.message);
    process.exitCode = failure.exitCode;
  }
}
