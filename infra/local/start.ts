import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DataDirectoryInUseError, startLocalRuntime } from '#infra/local/runtime';
import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { describeBuild, ensureWebAuthenticator } from '#web/authenticator/build';

const help = `Usage: npm start [-- options]

Runs the whole service on this machine: an embedded DynamoDB-compatible store (persisted under the data
directory), an embedded SQS-compatible queue, every endpoint of the route table behind an HTTP server, and the
webhook queue poller. No AWS account is needed.

The first start creates the table, the queues, the API key pair and a demo organization with its own key pair,
and prints the organization id and the path of its private key. Later starts reuse the data directory.

Options:
  --port <n>            HTTP port (default: $PORT or 8080; 0 picks a free port)
  --host <address>      Address to listen on (default: 127.0.0.1)
  --data-dir <path>     Data directory (default: $DATA_DIR or .data)
  --api-key-bits <n>    Size of the API key made on first start: 2048, 3072 or 4096 (default: 2048)
  -h, --help            Show this help

Ctrl-C stops the service cleanly.`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'api-key-bits': { type: 'string' },
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

const runtime = await startLocalRuntime({
  port,
  host: values.host ?? '127.0.0.1',
  dataDir: values['data-dir'] ?? process.env.DATA_DIR ?? '.data',
  apiKeyBits: bits,
}).catch((error: unknown) => {
  if (error instanceof DataDirectoryInUseError) {
    console.error(`${error.message}; stop it or pass --data-dir.`);
  } else if ((error as { code?: string }).code === 'EADDRINUSE') {
    console.error(`Port ${port} is in use; pass --port or set PORT.`);
  } else {
    console.error('The local runtime could not start:', error);
  }
  process.exit(1);
});

const { organization } = runtime;
if (runtime.tightened.length > 0) {
  console.warn(
    `Tightened ${runtime.tightened.length} path(s) in ${runtime.dataDir} that other users of this machine could read or write (folders are now 0700, files 0600).`,
  );
}
console.log(`
MFA authorization service — local runtime
  Base URL          ${runtime.baseUrl}
  Data directory    ${runtime.dataDir}
  Organization id   ${organization.organizationId}${organization.created ? '  (created now)' : ''}
  Organization key  ${organization.privateKeyPath}
  Key id (kid)      ${organization.kid}
  Web authenticator ${webAuthenticatorUrl(runtime.baseUrl)}

First signed call, with the project's client:
  npm run call -- ${callOptions(runtime.dataDir)}GET /organization/v3/directories

Ctrl-C stops the service.
`);

/**
 * The web authenticator as a browser on this machine should open it: at `localhost`, since passkeys need a domain
 * for their relying party, never an IP address, and `localhost` is a secure context without TLS.
 */
function webAuthenticatorUrl(baseUrl: string): string {
  const url = new URL(`${baseUrl}/authenticator/`);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return url.href;
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
