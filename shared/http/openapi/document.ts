import { type HttpRoute, httpRoutes, routeId, webhookDelivery } from '#infra/routes';
import { mayActFor } from '#shared/domain/subject';
import { type ErrorCode, errorStatus } from '#shared/errors';
import { type JsonSchema, schemaRef, toSchemaComponents } from '#shared/http/openapi/json-schema';
import { type Answer, type OperationDoc, operations, type RouteKey } from '#shared/http/openapi/operations';
import { type NamedSchema, requestBodies, sharedSchemas } from '#shared/http/openapi/request-schemas';
import { responseRef, responseSchemas } from '#shared/http/openapi/response-schemas';
import { maxRequestBodyBytes } from '#shared/http/event';
import type { EntityType } from '#shared/protocol/entity';
import { contentEncryptionAlgorithm, keyManagementAlgorithms } from '#shared/protocol/jwe';
import { maxRetryDelaySeconds } from '#shared/webhooks/settings';

type Json = { readonly [key: string]: unknown };

const protocol = (anchor: string) => `docs/protocol.md#${anchor}`;

/** Nearest owner first. */
const entityTypes: readonly EntityType[] = ['dev', 'svc', 'dir', 'org'];

/** Who may sign for a subject of this type, by the rule the pipeline applies: itself, and its owners. */
export function signersOf(subject: EntityType): EntityType[] {
  const owner = 'owner';
  return [
    subject,
    ...entityTypes.filter(
      (issuer) =>
        issuer !== subject &&
        mayActFor(
          { type: issuer, id: owner },
          { type: subject, id: 'subject' },
          { organizationId: owner, directoryId: owner },
        ),
    ),
  ];
}

/** The refusals any signed request may get, whatever it asks. */
const signedRefusals: readonly ErrorCode[] = [
  'ARG-001',
  'AUTH-001',
  'AUTH-002',
  'AUTH-003',
  'AUTH-004',
  'AUTH-005',
  'AUTH-006',
  'HTTP-403',
  'HTTP-413',
  'HTTP-500',
  'HTTP-503',
];

/** The `error_data` some codes carry. */
const errorData: Partial<Record<ErrorCode, string>> = {
  'SVC-005': 'BusyErrorData',
  'HTTP-429': 'RetryErrorData',
};

const statusLabels: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  401: 'Refused: the request JWT (docs/protocol.md#refusals)',
  403: 'Forbidden: a subject or object the caller may not act on',
  404: 'Not found',
  408: 'Expired',
  409: 'Conflict',
  413: `Body larger than ${maxRequestBodyBytes / 1024 / 1024} MB`,
  429: 'Too many: error_data.retry_after says how many seconds to wait',
  500: 'Internal error',
  503: 'Unavailable for a moment; retry',
};

const pathParameters: Readonly<Record<string, Json>> = {
  auth_request: { description: 'An authorization request id (a UUID)', schema: { type: 'string' } },
  kid: { description: 'A key id (docs/protocol.md#key-ids)', schema: { type: 'string' } },
  code: { description: 'A linking code', schema: { type: 'string', pattern: '^[A-Z0-9]{7,16}$' } },
  device_id: {
    description: 'The id of a device waiting for confirmation (a UUID)',
    schema: { type: 'string' },
  },
};

const jweDescription = `A compact JWE (${keyManagementAlgorithms.join(' or ')}, ${contentEncryptionAlgorithm})`;

/** A compact JWE whose plaintext is JSON of `schema`. */
const jwe = (schema: JsonSchema, to: string): JsonSchema => ({
  type: 'string',
  description: `${jweDescription} ${to}, of the JSON object described by contentSchema`,
  contentMediaType: 'application/json',
  contentSchema: schema,
});

const signedHeaders = {
  'X-IOV-JWT': { $ref: '#/components/headers/X-IOV-JWT' },
  'X-API-JWT': { $ref: '#/components/headers/X-API-JWT' },
};

const tags = [
  { name: 'Public', description: 'Unsigned (docs/protocol.md#public-endpoints)' },
  { name: 'Organization', description: 'Signed as an organization (docs/protocol.md#management-api)' },
  {
    name: 'Directory',
    description: 'Signed as a directory, or its organization (docs/protocol.md#management-api)',
  },
  {
    name: 'Service',
    description:
      'Signed as a service, or its directory or organization (docs/protocol.md#authorization-requests)',
  },
  { name: 'Device', description: "Signed by the device's own key (docs/protocol.md#device-api)" },
  { name: 'Legacy v1', description: 'docs/protocol.md#legacy-v1' },
];

function tagOf(path: string): string {
  const prefix = path.split('/')[1];
  const byPrefix: Readonly<Record<string, string>> = {
    public: 'Public',
    organization: 'Organization',
    directory: 'Directory',
    service: 'Service',
    device: 'Device',
    v1: 'Legacy v1',
  };
  const tag = prefix === undefined ? undefined : byPrefix[prefix];
  if (!tag) throw new Error(`No tag for ${path}`);
  return tag;
}

function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  const data = [...new Set(codes.map((code) => errorData[code]).filter((name) => name !== undefined))];
  return {
    $ref: schemaRef('ErrorBody'),
    properties: {
      error_code: { enum: codes },
      ...(data.length === 1 && data[0] ? { error_data: { $ref: schemaRef(data[0]) } } : {}),
    },
  };
}

function describeSigner(subject: EntityType | 'unsigned'): string {
  if (subject === 'unsigned') return 'Unsigned.';
  const signers = signersOf(subject).map((type) => `\`${type}:\``);
  const who = signers.length === 1 ? signers[0] : `${signers.slice(0, -1).join(', ')} or ${signers.at(-1)}`;
  return `Signed by ${who}, with \`sub\` = \`${subject}:<id>\` (${protocol('subjects')}).`;
}

function answerResponse(answer: Answer, signed: boolean): Json {
  const headers = signed
    ? { headers: signedHeaders }
    : answer.headers
      ? { headers: headerRefs(answer.headers) }
      : {};
  if (answer.body === undefined) return { description: answer.description, ...headers };
  const schema = typeof answer.body === 'string' ? responseRef(answer.body) : answer.body;
  const content = signed
    ? { 'application/jose': { schema: jwe(schema, "to the caller's key") } }
    : { [answer.mediaType ?? 'application/json']: { schema } };
  return { description: answer.description, ...headers, content };
}

function headerRefs(names: readonly string[]): Json {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/**
 * The error answers of an operation, each a reference to a shared response: one per kind of caller, status and set
 * of codes, so that the document (and the function serving it) holds each once.
 */
function errorResponses(
  doc: OperationDoc,
  route: HttpRoute,
  hasBody: boolean,
  shared: Map<string, Json>,
): Record<string, Json> {
  const signed = doc.subject !== 'unsigned';
  const own = doc.errors ?? [];
  const codes = new Set<ErrorCode>(
    signed
      ? [...signedRefusals, ...(hasBody ? (['AUTH-007'] as const) : []), ...own]
      : [...own, 'HTTP-500', ...(route.access.table ? (['HTTP-503'] as const) : [])],
  );
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(errorStatus) as ErrorCode[]) {
    if (codes.has(code)) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = [signed ? 'Signed' : 'Unsigned', String(status), ...statusCodes].join('_');
    if (!shared.has(name)) shared.set(name, errorResponse(status, statusCodes, signed));
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return responses;
}

function errorResponse(status: number, codes: readonly ErrorCode[], signed: boolean): Json {
  const schema = errorSchema(codes);
  // 401 and 5xx bodies are plain JSON, as the SDKs read them; other errors are encrypted like any answer.
  const plain = !signed || status === 401 || status >= 500;
  return {
    description: `${statusLabels[status] ?? 'Error'}: ${codes.join(', ')}`,
    ...(signed ? { headers: signedHeaders } : {}),
    content: plain
      ? { 'application/json': { schema } }
      : { 'application/jose': { schema: jwe(schema, "to the caller's key (no body if it has none)") } },
  };
}

function requestBody(doc: OperationDoc): Json | undefined {
  if (!doc.body) return undefined;
  const schema = { $ref: schemaRef(doc.body) };
  if (doc.subject === 'unsigned') {
    return { required: true, content: { 'application/json': { schema } } };
  }
  const encrypted = { schema: jwe(schema, "to the API's current key") };
  return {
    required: true,
    description: `${jweDescription} to the API's current public key, of the JSON object; the request JWT binds its hash (${protocol('request-bodies')}).`,
    content: { 'application/jose': encrypted, 'application/jwe': encrypted },
  };
}

function parameters(route: HttpRoute, doc: OperationDoc): Json[] {
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const documented = pathParameters[name];
    if (!documented) throw new Error(`No description of the path parameter ${name} of ${route.path}`);
    return { name, in: 'path', required: true, ...documented };
  });
  const inQuery = Object.entries(doc.query ?? {}).map(([name, description]) => ({
    name,
    in: 'query',
    required: true,
    description,
    schema: { type: 'string' },
  }));
  return [...inPath, ...inQuery];
}

function operation(route: HttpRoute, doc: OperationDoc, shared: Map<string, Json>): Json {
  const signed = doc.subject !== 'unsigned';
  const hasBody = doc.answers.some((answer) => answer.body !== undefined);
  const responses: Record<string, Json> = {};
  for (const answer of doc.answers) responses[String(answer.status)] = answerResponse(answer, signed);
  for (const [status, response] of Object.entries(errorResponses(doc, route, hasBody, shared))) {
    if (responses[status])
      throw new Error(`${route.method} ${route.path}: ${status} is both an answer and an error`);
    responses[status] = response;
  }
  const body = requestBody(doc);
  const params = parameters(route, doc);
  const description = [
    doc.description,
    describeSigner(doc.subject),
    signed && !doc.body ? 'Takes no body.' : undefined,
    `See ${protocol(doc.see)}.`,
  ]
    .filter(Boolean)
    .join(' ');
  return {
    operationId: routeId(route),
    tags: [tagOf(route.path)],
    summary: doc.summary,
    description,
    'x-subject': doc.subject === 'unsigned' ? null : `${doc.subject}:`,
    'x-signed-by': doc.subject === 'unsigned' ? [] : signersOf(doc.subject).map((type) => `${type}:`),
    security: signed ? [{ 'IOV-JWT': [] }, { 'API-JWT': [] }] : [],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

function paths(shared: Map<string, Json>): Record<string, Record<string, Json>> {
  const documented = new Set(Object.keys(operations));
  const result: Record<string, Record<string, Json>> = {};
  for (const route of httpRoutes) {
    const key: RouteKey = `${route.method} ${route.path}`;
    const doc = operations[key];
    if (!doc) throw new Error(`${key} is in infra/routes.ts but not in shared/http/openapi/operations.ts`);
    documented.delete(key);
    result[route.path] = {
      ...result[route.path],
      [route.method.toLowerCase()]: operation(route, doc, shared),
    };
  }
  if (documented.size > 0) throw new Error(`Not in infra/routes.ts: ${[...documented].join(', ')}`);
  return result;
}

/** The converted request schemas, with the descriptions of what JSON Schema cannot say. */
function requestSchemaComponents(): Record<string, JsonSchema> {
  const named: Record<string, NamedSchema> = { ...sharedSchemas, ...requestBodies };
  const converted = toSchemaComponents(
    Object.fromEntries(Object.entries(named).map(([name, { schema }]) => [name, schema])),
  );
  return Object.fromEntries(
    Object.entries(named).map(([name, { description, notes }]) => {
      const schema = converted[name] ?? {};
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const field of Object.keys(notes ?? {})) {
        if (!properties[field]) throw new Error(`${name} has no property ${field} to note`);
      }
      return [
        name,
        {
          ...(description === undefined ? {} : { description }),
          ...schema,
          ...(notes
            ? {
                properties: Object.fromEntries(
                  Object.entries(properties).map(([field, property]) => [
                    field,
                    notes[field] === undefined ? property : { description: notes[field], ...property },
                  ]),
                ),
              }
            : {}),
        },
      ];
    }),
  );
}

const jwtHeader: Json = {
  description: `The response JWT, signed by the API's key; the same token is in X-IOV-JWT and X-API-JWT on every answer (${protocol('response-jwt')}).`,
  required: true,
  schema: { type: 'string' },
};

const keyIdHeader: Json = {
  description: `The key's kid (${protocol('key-ids')})`,
  required: true,
  schema: { type: 'string' },
};

const webhookRetries = `Any other status, no answer within ${webhookDelivery.timeoutMs / 1000} s, or a connection error: sent again after ${webhookDelivery.retryBaseSeconds} s, then after doubling delays plus up to a quarter at random (at most ${maxRetryDelaySeconds / 60} minutes), ${webhookDelivery.maxAttempts} attempts in all; then the dead-letter queue.`;

function webhook(name: string, summary: string, description: string, content: Json): Json {
  return {
    post: {
      operationId: `${name}Webhook`,
      summary,
      description: `${description} One JWT signed by the API's key in both headers: iss the identity the causing request used (lka or api), aud the entity that made it, sub the service or directory, and a request claim binding POST, the URL's path and the body's hash. See ${protocol('webhooks')}.`,
      parameters: ['X-IOV-JWT', 'X-API-JWT'].map((header) => ({
        name: header,
        in: 'header',
        required: true,
        description: 'The webhook JWT',
        schema: { type: 'string' },
      })),
      requestBody: { required: true, content },
      responses: { '2XX': { description: 'Delivered' }, default: { description: webhookRetries } },
    },
  };
}

const webhooks = {
  authorizationResponse: webhook(
    'AuthorizationResponse',
    'Authorization response',
    "A device answered: POSTed to the service's callback_url, encrypted to the very key the device sealed auth_jwe to.",
    {
      'application/jose': { schema: jwe(responseRef('AuthorizationResponseEvent'), 'to the requester key') },
    },
  ),
  sessionEnded: webhook(
    'SessionEnded',
    'Session ended',
    "The user logged out of the service on a device: POSTed to the service's callback_url as plain JSON.",
    { 'application/json': { schema: responseRef('SessionEndedEvent') } },
  ),
  deviceLinkCompletion: webhook(
    'DeviceLinkCompletion',
    'Device link completion',
    "A device linked: POSTed to the directory's webhook_url, encrypted to the key the link request was answered with while it is live, else to the entity's newest live encryption key.",
    {
      'application/jose': { schema: jwe(responseRef('DeviceLinkCompletionEvent'), "to the requester's key") },
    },
  ),
};

const overview = [
  'The LaunchKey v3 protocol as this service speaks it; docs/protocol.md is the full reference.',
  'Signed operations carry `Authorization: IOV-JWT <jwt>` (or `API-JWT <jwt>`): a request JWT signed by an organization, directory, service or device key (docs/protocol.md#signed-requests).',
  "Request bodies are compact JWEs to the API's current key of the JSON objects described here (docs/protocol.md#request-bodies); every string must be well-formed Unicode and unknown fields are ARG-001.",
  "Answers carry the response JWT in X-IOV-JWT and X-API-JWT; bodies are encrypted to the caller's key, except the plain JSON error bodies of 401 and 5xx (docs/protocol.md#responses).",
  'An unknown operation under /organization, /directory, /service or /device is ARG-002; any other unknown path is a plain 404.',
].join('\n\n');

/**
 * The OpenAPI 3.1 document of the API: every row of infra/routes.ts with the request schemas its handler validates
 * with, the answers of shared/http/openapi/operations.ts, and the three webhooks.
 */
export function openApiDocument(version: string): Json {
  const errorAnswers = new Map<string, Json>();
  const documentedPaths = paths(errorAnswers);
  return {
    openapi: '3.1.1',
    info: {
      title: 'MFA authorization service',
      version,
      description: overview,
    },
    tags,
    paths: documentedPaths,
    webhooks,
    components: {
      schemas: { ...requestSchemaComponents(), ...responseSchemas },
      responses: Object.fromEntries([...errorAnswers].sort(([a], [b]) => a.localeCompare(b))),
      headers: {
        'X-IOV-JWT': jwtHeader,
        'X-API-JWT': jwtHeader,
        'X-IOV-KEY-ID': keyIdHeader,
        'X-API-KEY-ID': keyIdHeader,
      },
      securitySchemes: {
        'IOV-JWT': {
          type: 'http',
          scheme: 'IOV-JWT',
          description: `Authorization: IOV-JWT <request JWT>, the LaunchKey SDKs' dialect (${protocol('dialects')})`,
        },
        'API-JWT': {
          type: 'http',
          scheme: 'API-JWT',
          description: `Authorization: API-JWT <request JWT>, the api dialect (${protocol('dialects')})`,
        },
      },
    },
  };
}
