import { parseArgs } from 'node:util';
import {
  type ApiLocation,
  dataDirectory,
  exitCodes,
  exitCodesHelp,
  exitWith,
  locateApi,
  noLocalRuntime,
  parseCommandLine,
  readDemoOrganization,
  readKeyFile,
  runCommand,
  usageFailure,
} from '#shared/cli/common';
import { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { type DialectName, dialects } from '#shared/protocol/dialect';

const usage = `Usage: npm run call -- [options] <METHOD> <PATH> [JSON body]
(npm run call -- --help for the options)`;

const help = `Usage: npm run call -- [options] <METHOD> <PATH> [JSON body]

Makes one signed request with the project's TypeScript client and prints the verified, decrypted answer.
Without --issuer and --key it signs as the demo organization of the local runtime's data directory, and it finds
the runtime from the record that runtime keeps there (runtime.json), whatever port it runs on.

Examples:
  npm run call -- GET /organization/v3/directories
  npm run call -- --dialect api GET /organization/v3/directories
  npm run call -- --issuer org:<id> --key org.pem POST /organization/v3/directories '{"name":"Staff"}'

Options:
  --base-url <url>      Service base URL (default: $BASE_URL, else http://127.0.0.1:$PORT, else the running
                        runtime recorded in the data directory, else http://127.0.0.1:8080)
  --issuer <entity>     Signing entity, e.g. org:<uuid> (default: the demo organization)
  --key <path>          Its private key PEM (default: the demo organization's key)
  --subject <entity>    Entity the request acts for (default: the issuer)
  --dialect <iov|api>   iov: IOV-JWT/lka as the LaunchKey SDKs; api: API-JWT/api (default: iov)
  --data-dir <path>     The local runtime's data directory (default: $DATA_DIR or .data)
  -h, --help            Show this help

An error answer prints its status and body; an answer without the API's signature (a path no route serves, or
another server) prints its status and body as they came.

${exitCodesHelp}`;

const { values, positionals } = parseCommandLine(
  () =>
    parseArgs({
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
    }),
  usage,
);

if (values.help) {
  console.log(help);
  process.exit(0);
}
const [method, path, bodyText] = positionals;
if (!method || !path || positionals.length > 3) {
  exitWith(usageFailure('Give a METHOD and a PATH, and optionally a JSON body.', usage));
}
if (!/^[A-Za-z]+$/.test(method)) exitWith(usageFailure(`${method} is not an HTTP method.`, usage));
if (!path.startsWith('/')) exitWith(usageFailure(`The path ${path} must start with /.`, usage));
const dialect = (values.dialect ?? 'iov') as DialectName;
if (dialect !== 'iov' && dialect !== 'api') exitWith(usageFailure('--dialect must be iov or api.', usage));
let body: unknown;
if (bodyText !== undefined) {
  try {
    body = JSON.parse(bodyText);
  } catch {
    exitWith(usageFailure('The body must be JSON.', usage));
  }
}

let api: ApiLocation | undefined;
await runCommand(
  async () => {
    const dataDir = dataDirectory(values['data-dir']);
    let issuer = values.issuer;
    let keyPath = values.key;
    if (!issuer || !keyPath) {
      const demo = await readDemoOrganization(dataDir);
      if (!demo) throw noLocalRuntime(dataDir, '--issuer and --key');
      issuer ??= `org:${demo.organizationId}`;
      keyPath ??= demo.privateKeyPath;
    }
    const privateKeyPem = await readKeyFile(keyPath, usage);
    api = await locateApi({ flag: values['base-url'], dataDir, usage });
    let client: ApiClient;
    try {
      client = new ApiClient({ baseUrl: api.baseUrl, issuer, privateKeyPem, dialect });
    } catch (error) {
      throw usageFailure(`${keyPath} holds no RSA private key: ${(error as Error).message}`, usage);
    }

    const request = await client.prepare(method, path, {
      ...(values.subject ? { subject: values.subject } : {}),
      ...(body === undefined ? {} : { body }),
    });
    const response = await client.send(request);
    if (!response.headers.has(dialects[dialect].jwtHeader)) {
      // Nothing to verify or decrypt: the answer is not the API's own (docs/protocol.md#refusals).
      const text = (await response.text()).replace(/\s+/g, ' ').trim();
      console.error(`${response.status} ${response.statusText} (unsigned)${text ? `: ${text}` : ''}`);
      process.exitCode = exitCodes.refused;
      return;
    }
    try {
      const answer = await client.verifyResponse(request, response);
      console.log(`${answer.status}`);
      if (answer.body !== undefined) console.log(JSON.stringify(answer.body, null, 2));
    } catch (error) {
      if (!(error instanceof ApiRequestError)) throw error;
      // The API's own refusal, verified and decrypted: printed whole, as a success is.
      console.error(`${error.status} ${error.errorCode ?? ''}`.trim());
      console.error(
        JSON.stringify({ error_detail: error.errorDetail, error_data: error.errorData }, null, 2),
      );
      process.exitCode = exitCodes.refused;
    }
  },
  () => api,
);
