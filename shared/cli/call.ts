import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { defaultBaseUrl, defaultDataDir, readDemoOrganization } from '#shared/cli/local-defaults';
import type { DialectName } from '#shared/protocol/dialect';

const help = `Usage: npm run call -- [options] <METHOD> <PATH> [JSON body]

Makes one signed request with the project's TypeScript client and prints the verified, decrypted answer.
Without --issuer and --key it uses the demo organization of the local runtime's data directory.

Examples:
  npm run call -- GET /organization/v3/directories
  npm run call -- --dialect api GET /organization/v3/directories
  npm run call -- --issuer org:<id> --key org.pem POST /organization/v3/directories '{"name":"Staff"}'

Options:
  --base-url <url>      Service base URL (default: $BASE_URL or http://127.0.0.1:$PORT, port 8080)
  --issuer <entity>     Signing entity, e.g. org:<uuid> (default: the demo organization)
  --key <path>          Its private key PEM (default: the demo organization's key)
  --subject <entity>    Entity the request acts for (default: the issuer)
  --dialect <iov|api>   iov: IOV-JWT/lka as the LaunchKey SDKs; api: API-JWT/api (default: iov)
  --data-dir <path>     Data directory holding the demo organization (default: $DATA_DIR or .data)
  -h, --help            Show this help

Exit status: 0 on a 2xx answer, 1 on an error answer, 2 on bad usage.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'base-url': { type: 'string' },
    issuer: { type: 'string' },
    key: { type: 'string' },
    subject: { type: 'string' },
    dialect: { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(help);
  process.exit(0);
}
const [method, path, bodyText] = positionals;
if (!method || !path || positionals.length > 3)
  usage('Give a METHOD and a PATH, and optionally a JSON body.');
const dialect = (values.dialect ?? 'iov') as DialectName;
if (dialect !== 'iov' && dialect !== 'api') usage('--dialect must be iov or api');
let body: unknown;
if (bodyText !== undefined) {
  try {
    body = JSON.parse(bodyText);
  } catch {
    usage('The body must be JSON.');
  }
}

let issuer = values.issuer;
let keyPath = values.key;
if (!issuer || !keyPath) {
  const dataDir = defaultDataDir(values['data-dir']);
  const demo = await readDemoOrganization(dataDir);
  if (!demo) usage(`No --issuer/--key given and no demo organization in ${dataDir}; run npm start first.`);
  issuer ??= `org:${demo.organizationId}`;
  keyPath ??= demo.privateKeyPath;
}

const client = new ApiClient({
  baseUrl: defaultBaseUrl(values['base-url']),
  issuer,
  privateKeyPem: await readFile(keyPath, 'utf8'),
  dialect,
});

try {
  const response = await client.call(method, path, {
    ...(values.subject ? { subject: values.subject } : {}),
    ...(body === undefined ? {} : { body }),
  });
  console.log(`${response.status}`);
  if (response.body !== undefined) console.log(JSON.stringify(response.body, null, 2));
} catch (error) {
  if (error instanceof ApiRequestError) {
    console.error(`${error.status} ${error.errorCode ?? ''}`.trim());
    console.error(JSON.stringify({ error_detail: error.errorDetail, error_data: error.errorData }, null, 2));
    process.exit(1);
  }
  throw error;
}

function usage(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}
