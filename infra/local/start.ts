import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DataDirectoryInUseError, type LocalRuntime, startLocalRuntime } from '#infra/local/runtime';
import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { describeBuild, ensureWebAuthenticator } from '#web/authenticator/build';
import { describeConsoleBuild, ensureWebConsole } from '#web/console/build';
import { demoOwnerInvite } from '#infra/local/console-invite';

// The AWS SDK tells every process on Node 20 that its later versions need Node 22: noise here. Set before any client
// loads.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ||= 'true';

const help = `Usage: npm start [-- options]

Runs the whole service on this machine: an embedded DynamoDB-compatible store (persisted under the data
directory), an embedded SQS-compatible queue, every endpoint of the route table behind an HTTP server, and the
webhook queue poller. No AWS account is needed.

The first start creates the table, the queues, the API key pair and a demo organization with its own key pair,
and prints the organization id and the path of its private key. Later starts reuse the data directory. Each start
prints a new one-time invite to the console (/console/) as the demo organization's owner, good for 30 minutes.

Options:
  --port <n>            HTTP port (default: $PORT or 8080; 0 picks a free port)
  --host <address>      Address to listen on (default: 127.0.0.1)
  --data-dir <path>     Data directory (default: $DATA_DIR or .data)
  --api-key-bits <n>    Size of the API key made on first start: 2048, 3072 or 4096 (default: 2048)
  --assembly            Run what \`cdk deploy\` ships instead of the sources: the synthesized cloud assembly
                        (synthesized into .tmp/assembly when missing or older than its sources), each function's
                        bundle with the environment its template gives it, traced, on Lambda's Node (installed with
                        Lambda's runtime interface client into a cache folder on first use: a few minutes, once)
  --cloud-assembly <dir>
                        With --assembly: run this cloud assembly (a cdk.out) exactly as it is
  -h, --help            Show this help

Passkeys are bound to http://localhost:<port>, whatever Host a request names; WEBAUTHN_ORIGINS (comma-separated
URLs) lists others, the first of which is used for a request from anywhere else.

The terminal shows one line per webhook or push attempt; LOG_FORMAT=json prints the JSON log records the deployed
functions write instead. A port already in use stops the start before anything is made.

Ctrl-C stops the service cleanly.`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'api-key-bits': { type: 'string' },
    assembly: { type: 'boolean' },
    'cloud-assembly': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(help);
  process.exit(0);
}

const port = Number(values.port ?? process.env.PORT ?? 8080);
const bits = Number(values['api-key-bits'] ?? 2048) as ApiKeySize;
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`Invalid port ${values.port ?? process.env.PORT}`);
if (!apiKeySizes.includes(bits)) fail(`--api-key-bits must be one of ${apiKeySizes.join(', ')}`);
if (values['cloud-assembly'] && !values.assembly) fail('--cloud-assembly goes with --assembly');
if (values.assembly && values['api-key-bits'])
  fail(
    '--api-key-bits is for the sources: the cloud assembly makes the key its template says (-c apiKeyBits)',
  );

function fail(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}

// The web authenticator is served from its build: made now when missing or older than its sources.
const webBuild = await ensureWebAuthenticator().catch((error: unknown) => {
  console.error('The web authenticator could not be built:', error);
  process.exit(1);
});
if (webBuild) console.log(describeBuild(webBuild));
const consoleBuild = await ensureWebConsole().catch((error: unknown) => {
  console.error('The console could not be built:', error);
  process.exit(1);
});
if (consoleBuild) console.log(describeConsoleBuild(consoleBuild));

const dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? '.data';
const host = values.host ?? '127.0.0.1';
const portInUse = `Port ${port} on ${host} is in use (another \`npm start\`?): pick another with --port <n> or PORT=<n> (0 picks a free one).`;
// Before anything is made: a port in use must not leave a half-made data directory behind.
if (port !== 0 && !(await portIsFree(port, host))) {
  console.error(portInUse);
  process.exit(1);
}
// A start that fails after all removes the data directory only if it made it: one that existed stays as it was.
const dataDirExisted = existsSync(dataDir);
const starting: Promise<LocalRuntime & { banner?: string }> = values.assembly
  ? import('#infra/assembly/runtime').then(async ({ startAssemblyRuntime }) => {
      const runtime = await startAssemblyRuntime({
        port,
        host,
        dataDir,
        ...(values['cloud-assembly'] ? { cloudAssembly: values['cloud-assembly'] } : {}),
        log: (line) => console.log(line),
      });
      return { ...runtime, banner: assemblyBanner(runtime) };
    })
  : startLocalRuntime({ port, host, dataDir, apiKeyBits: bits });
const runtime = await starting.catch(async (error: unknown) => {
  if (error instanceof DataDirectoryInUseError) {
    console.error(`${error.message}; stop it or pass --data-dir.`);
  } else if ((error as { code?: string }).code === 'EADDRINUSE') {
    console.error(portInUse);
  } else {
    console.error('The local runtime could not start:', error);
  }
  if (!dataDirExisted) await rm(dataDir, { recursive: true, force: true });
  process.exit(1);
});

const { organization } = runtime;
// A new one each start, shown once: an invite is single-use and lasts 30 minutes.
const invite = await demoOwnerInvite(runtime.baseUrl, organization.organizationId);
if (runtime.tightened.length > 0) {
  console.warn(
    `Tightened ${runtime.tightened.length} path(s) in ${runtime.dataDir} that other users of this machine could read or write (folders are now 0700, files 0600).`,
  );
}
console.log(`
MFA authorization service — local runtime${runtime.banner ?? ''}
  Base URL          ${runtime.baseUrl}
  Data directory    ${runtime.dataDir}
  Organization id   ${organization.organizationId}${organization.created ? '  (created now)' : ''}
  Organization key  ${organization.privateKeyPath}
  Key id (kid)      ${organization.kid}
  Web authenticator ${webAuthenticatorUrl(runtime.baseUrl)}
  Console invite    ${invite.url}
                    (the demo organization's owner; one use, until ${invite.expiresAt.slice(11, 16)} UTC)

First signed call, with the project's client:
  npm run call -- ${callOptions(runtime.dataDir)}GET /organization/v3/directories

Ctrl-C stops the service.
`);

/** Whether a server could listen on the port now: the runtime binds it only after making its data directory. */
function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** What the assembly runner runs, where its traces and logs go, and what it leaves out. */
function assemblyBanner(runtime: import('#infra/assembly/runtime').AssemblyRuntime): string {
  return [
    ' (the cloud assembly, as deployed)',
    `  Cloud assembly    ${runtime.cloudAssembly}`,
    `  Functions run on  Node ${runtime.lambdaNode.version}, ${runtime.lambdaNode.clientName}`,
    `  X-Ray segments    ${runtime.xraySegments}`,
    `  Function logs     ${runtime.logDirectory}`,
    ...runtime.notes.map((note) => `  Note              ${note}`),
  ].join('\n');
}

/** The options `npm run call` needs to find this runtime: its data directory when not the default (the runtime's
 * record there gives the port). */
function callOptions(dataDir: string): string {
  return dataDir === resolve('.data') ? '' : `--data-dir ${dataDir} `;
}

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) {
    console.error('Forced exit.');
    process.exit(130);
  }
  stopping = true;
  console.log(`\n${signal}: stopping…`);
  runtime.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('Shutdown failed:', error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
