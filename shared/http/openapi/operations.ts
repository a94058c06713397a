import type { HttpMethod } from '#infra/routes';
import type { ErrorCode } from '#shared/errors';
import type { JsonSchema } from '#shared/http/openapi/json-schema';
import type { RequestBodyName } from '#shared/http/openapi/request-schemas';
import { arrayOf, responseRef, type ResponseSchemaName } from '#shared/http/openapi/response-schemas';
import type { EntityType } from '#shared/protocol/entity';

/** One answer an operation gives when it does what it was asked (errors are listed by code). */
export interface Answer {
  readonly status: number;
  readonly description: string;
  readonly body?: ResponseSchemaName | JsonSchema;
  /** The media type of an unsigned answer that is not JSON. */
  readonly mediaType?: string;
  /** Response headers, by their name under components.headers. */
  readonly headers?: readonly string[];
}

/**
 * What the document says of one row of the route table. `subject` and `body` are what the row's handler passes to the
 * signed pipeline (test/docs/openapi.test.ts holds every handler to them); the rest is documentation.
 */
export interface OperationDoc {
  readonly summary: string;
  readonly description?: string;
  /** The kind of entity `sub` names, or 'unsigned'. */
  readonly subject: EntityType | 'unsigned';
  readonly body?: RequestBodyName;
  readonly answers: readonly Answer[];
  /** Codes of this operation's own refusals; those every signed request may get are added by the generator. */
  readonly errors?: readonly ErrorCode[];
  /** The section of docs/protocol.md that says more. */
  readonly see: string;
  readonly query?: Readonly<Record<string, string>>;
}

export type RouteKey = `${HttpMethod} ${string}`;

const created = (body: ResponseSchemaName, description = 'Created'): Answer => ({
  status: 201,
  description,
  body,
});
const ok = (body: ResponseSchemaName | JsonSchema, description = 'OK'): Answer => ({
  status: 200,
  description,
  body,
});
const done = (description = 'Done'): Answer => ({ status: 204, description });
const list = (name: ResponseSchemaName, description?: string) => arrayOf(responseRef(name), description);
const keyErrors = {
  add: ['KEY-001', 'KEY-002'],
  update: ['KEY-003'],
  remove: ['KEY-003', 'KEY-004'],
} as const;

/** The operations written once for both owners of services: `/organization/v3/...` and `/directory/v3/...`. */
function serviceOperations(
  prefix: '/organization/v3' | '/directory/v3',
  subject: 'org' | 'dir',
): Record<string, OperationDoc> {
  const kind = subject === 'org' ? 'Organization Service' : 'Directory Service';
  return {
    [`POST ${prefix}/services`]: {
      summary: `Create a ${kind}`,
      description:
        'Service names are unique across all services, without regard to case or spacing, and none may look like another (a Cyrillic А for a Latin A, rn for m).',
      subject,
      body: 'CreateServiceBody',
      answers: [created('Created')],
      errors: ['SVC-001'],
      see: 'management-api',
    },
    [`GET ${prefix}/services`]: {
      summary: `List the ${kind}s`,
      subject,
      answers: [ok(list('Service'))],
      see: 'objects',
    },
    [`POST ${prefix}/services/list`]: {
      summary: `${kind}s by id`,
      description: 'In the order asked; any id the subject does not own, or that does not exist, is 403.',
      subject,
      body: 'ListServicesByIdsBody',
      answers: [ok(list('Service'))],
      see: 'objects',
    },
    [`PATCH ${prefix}/services`]: {
      summary: `Update a ${kind}`,
      subject,
      body: 'UpdateServiceBody',
      answers: [done()],
      errors: ['SVC-001'],
      see: 'management-api',
    },
    [`POST ${prefix}/service/keys`]: {
      summary: 'Add a key to a service',
      subject,
      body: 'AddServiceKeyBody',
      answers: [created('KeyAdded')],
      errors: keyErrors.add,
      see: 'key-ids',
    },
    [`POST ${prefix}/service/keys/list`]: {
      summary: "A service's public keys",
      subject,
      body: 'ListServiceKeysBody',
      answers: [ok(list('PublicKeyEntry'))],
      see: 'objects',
    },
    [`PATCH ${prefix}/service/keys`]: {
      summary: "Change a service key's active flag or expiry",
      description: 'Takes effect on the next request.',
      subject,
      body: 'UpdateServiceKeyBody',
      answers: [done()],
      errors: keyErrors.update,
      see: 'management-api',
    },
    [`DELETE ${prefix}/service/keys`]: {
      summary: 'Remove a service key',
      description: 'The last key of a service cannot be removed (KEY-004).',
      subject,
      body: 'RemoveServiceKeyBody',
      answers: [done()],
      errors: keyErrors.remove,
      see: 'management-api',
    },
    [`POST ${prefix}/service/policy/item`]: {
      summary: "A service's policy",
      description: 'The blank LEGACY policy when none is set.',
      subject,
      body: 'ServiceIdBody',
      answers: [ok('Policy')],
      errors: ['SVC-004'],
      see: 'policies',
    },
    [`PUT ${prefix}/service/policy`]: {
      summary: "Set a service's policy",
      subject,
      body: 'SetServicePolicyBody',
      answers: [done()],
      errors: ['SVC-002', 'SVC-004'],
      see: 'policies',
    },
    [`DELETE ${prefix}/service/policy`]: {
      summary: "Remove a service's policy",
      description: 'Back to the blank LEGACY policy.',
      subject,
      body: 'ServiceIdBody',
      answers: [done()],
      errors: ['SVC-004'],
      see: 'policies',
    },
  };
}

/** What the document says of every row of infra/routes.ts, by `METHOD path`. */
export const operations: Readonly<Record<RouteKey, OperationDoc>> = {
  'GET /public/v3/ping': {
    summary: 'The service clock',
    description: 'Clients correct their clock with it before they sign.',
    subject: 'unsigned',
    answers: [ok('Ping')],
    see: 'public-endpoints',
  },
  'GET /public/v3/public-key': {
    summary: "The API's current public key",
    description: 'Request bodies are encrypted to it; answers are signed with it.',
    subject: 'unsigned',
    answers: [
      {
        status: 200,
        description: 'The key as SPKI PEM, its kid in both headers',
        mediaType: 'text/plain',
        body: { type: 'string' },
        headers: ['X-IOV-KEY-ID', 'X-API-KEY-ID'],
      },
    ],
    errors: ['HTTP-503'],
    see: 'public-endpoints',
  },
  'GET /public/v3/public-key/{kid}': {
    summary: 'An API public key by kid',
    description: 'Older keys stay here after a rotation, so that answers they signed still verify.',
    subject: 'unsigned',
    answers: [
      {
        status: 200,
        description: 'The key as SPKI PEM, its kid in both headers',
        mediaType: 'text/plain',
        body: { type: 'string' },
        headers: ['X-IOV-KEY-ID', 'X-API-KEY-ID'],
      },
    ],
    errors: ['HTTP-404'],
    see: 'public-endpoints',
  },
  'GET /public/v3/icons/service.svg': {
    summary: 'The generic service icon',
    description: 'The icon of services that have none of their own.',
    subject: 'unsigned',
    answers: [
      { status: 200, description: 'An SVG image', mediaType: 'image/svg+xml', body: { type: 'string' } },
    ],
    see: 'public-endpoints',
  },
  'GET /public/v3/qrcodes/{code}': {
    summary: 'The QR image of a linking code',
    description:
      "Any well-formed code has one, valid or not, so the answer tells nobody which codes exist; it encodes the web authenticator's page with the code in its fragment.",
    subject: 'unsigned',
    answers: [
      {
        status: 200,
        description: 'A PNG image',
        mediaType: 'image/png',
        body: { type: 'string', contentMediaType: 'image/png' },
      },
    ],
    errors: ['HTTP-404'],
    see: 'public-endpoints',
  },
  'GET /public/v3/openapi.json': {
    summary: 'This document',
    subject: 'unsigned',
    answers: [ok({ type: 'object', description: 'The OpenAPI 3.1 document' }, 'OpenAPI 3.1')],
    see: 'public-endpoints',
  },
  'GET /v1/ping': {
    summary: 'Legacy v1 ping',
    description: 'The API key a v1 client encrypts its secret to, and the time to stamp it with.',
    subject: 'unsigned',
    answers: [ok('V1Ping')],
    errors: ['HTTP-503'],
    see: 'legacy-v1',
  },
  'GET /v1/poll': {
    summary: 'Legacy v1 poll',
    description:
      "Authenticated by the v1 app key, the secret and a timestamp encrypted to the key of GET /v1/ping, and the service key's signature over them. Refusals use the v1 envelope: 400/70403 pending, 400/70404 expired or cancelled, 404/70402 unknown, 401/70401 bad credentials or a stamp more than two minutes off.",
    subject: 'unsigned',
    query: {
      auth_request: 'The authorization request id',
      app_key: "The service's v1 app key (npm run admin -- service v1-credentials)",
      secret_key:
        'The secret and a launchkey_time stamp, RSA-OAEP encrypted to the key of GET /v1/ping, base64',
      signature: "The service key's RSA SHA-256 signature over secret_key's bytes, base64",
    },
    answers: [
      ok('V1Poll', 'Answered'),
      {
        status: 400,
        description:
          'Pending (70403), expired or cancelled (70404), a parameter missing, or no v1 package in the answer',
        body: 'V1Error',
      },
      { status: 401, description: 'Bad credentials or stamp (70401)', body: 'V1Error' },
      { status: 404, description: 'No such request for this service (70402)', body: 'V1Error' },
    ],
    see: 'legacy-v1',
  },

  'POST /organization/v3/directories': {
    summary: 'Create a directory',
    description: 'Directory names are unique within the organization, without regard to case or spacing.',
    subject: 'org',
    body: 'CreateDirectoryBody',
    answers: [created('Created')],
    errors: ['ORG-003'],
    see: 'management-api',
  },
  'GET /organization/v3/directories': {
    summary: "The organization's directories",
    subject: 'org',
    answers: [ok(list('Directory'))],
    see: 'objects',
  },
  'POST /organization/v3/directories/list': {
    summary: 'Directories by id',
    description: 'In the order asked; any id the organization does not own, or that does not exist, is 403.',
    subject: 'org',
    body: 'ListDirectoriesByIdsBody',
    answers: [ok(list('Directory'))],
    see: 'objects',
  },
  'PATCH /organization/v3/directories': {
    summary: 'Update a directory',
    subject: 'org',
    body: 'UpdateDirectoryBody',
    answers: [done()],
    see: 'management-api',
  },
  'POST /organization/v3/directory/keys': {
    summary: 'Add a key to a directory',
    subject: 'org',
    body: 'AddDirectoryKeyBody',
    answers: [created('KeyAdded')],
    errors: keyErrors.add,
    see: 'key-ids',
  },
  'POST /organization/v3/directory/keys/list': {
    summary: "A directory's public keys",
    subject: 'org',
    body: 'ListDirectoryKeysBody',
    answers: [ok(list('PublicKeyEntry'))],
    see: 'objects',
  },
  'PATCH /organization/v3/directory/keys': {
    summary: "Change a directory key's active flag or expiry",
    description: 'Takes effect on the next request.',
    subject: 'org',
    body: 'UpdateDirectoryKeyBody',
    answers: [done()],
    errors: keyErrors.update,
    see: 'management-api',
  },
  'DELETE /organization/v3/directory/keys': {
    summary: 'Remove a directory key',
    description: 'The last key of a directory cannot be removed (KEY-004).',
    subject: 'org',
    body: 'RemoveDirectoryKeyBody',
    answers: [done()],
    errors: keyErrors.remove,
    see: 'management-api',
  },
  'POST /organization/v3/directory/sdk-keys': {
    summary: 'Generate an SDK key for a directory',
    description: 'Devices link with an SDK key of their directory.',
    subject: 'org',
    body: 'DirectoryIdBody',
    answers: [created('SdkKeyGenerated')],
    see: 'management-api',
  },
  'POST /organization/v3/directory/sdk-keys/list': {
    summary: "A directory's SDK keys",
    subject: 'org',
    body: 'DirectoryIdBody',
    answers: [ok(arrayOf({ type: 'string', format: 'uuid' }))],
    see: 'management-api',
  },
  'DELETE /organization/v3/directory/sdk-keys': {
    summary: 'Remove an SDK key',
    description: 'Not one of the directory is ORG-006; the last one is ORG-005.',
    subject: 'org',
    body: 'RemoveSdkKeyBody',
    answers: [done()],
    errors: ['ORG-005', 'ORG-006'],
    see: 'management-api',
  },
  'POST /organization/v3/audit/list': {
    summary: "The organization's audit trail",
    description:
      "An extension no SDK calls. The organization's records from since to until (at most 31 days), oldest first: every change of state, every authorization request's fate, every refusal of a request whose signature verified. Never a secret, a code, a key or an answer. An organization reads only its own records, and only with its own key.",
    subject: 'org',
    body: 'ListAuditRecordsBody',
    answers: [ok('AuditRecords')],
    see: 'audit-trail',
  },
  ...serviceOperations('/organization/v3', 'org'),
  ...serviceOperations('/directory/v3', 'dir'),

  'POST /service/v3/auths': {
    summary: 'Ask a user to approve or deny',
    description:
      'One pending request per user: a second is 409 SVC-005 naming the first in error_data (BusyErrorData). An unknown user, a null username or a user with no linked device is 404; an inactive service or directory is 403.',
    subject: 'svc',
    body: 'CreateAuthRequestBody',
    answers: [created('CreatedAuthRequest')],
    errors: ['SVC-002', 'HTTP-404', 'SVC-005'],
    see: 'creating-a-request',
  },
  'GET /service/v3/auths/{auth_request}': {
    summary: 'Poll an authorization request',
    subject: 'svc',
    answers: [
      ok('AuthorizationResponse', 'Answered'),
      done('Pending, or an id this service does not know'),
      { status: 408, description: 'Expired (no body)' },
    ],
    errors: ['SVC-007'],
    see: 'states',
  },
  'DELETE /service/v3/auths/{auth_request}': {
    summary: 'Cancel a pending authorization request',
    description: 'Answered is SVC-006, cancelled SVC-007, unknown or expired 404.',
    subject: 'svc',
    answers: [done('Cancelled')],
    errors: ['SVC-006', 'SVC-007', 'HTTP-404'],
    see: 'states',
  },
  'POST /service/v3/sessions': {
    summary: "Record the start of the user's session with this service",
    subject: 'svc',
    body: 'StartSessionBody',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'sessions',
  },
  'DELETE /service/v3/sessions': {
    summary: "End the user's session with this service",
    description: 'No session to end is fine; no such user is 404.',
    subject: 'svc',
    body: 'UsernameBody',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'sessions',
  },
  'POST /service/v3/totp': {
    summary: "Check a code against the user's TOTP",
    description:
      'Each code works once; after 5 consecutive failures the user is locked for 15 minutes, and every check is invalid. A user without TOTP is 404.',
    subject: 'svc',
    body: 'VerifyTotpBody',
    answers: [ok('TotpValidity')],
    errors: ['HTTP-404'],
    see: 'totp',
  },

  'POST /directory/v3/devices': {
    summary: 'Start linking a device for a user',
    description: 'The user is created if the directory has none by that identifier.',
    subject: 'dir',
    body: 'StartDeviceLinkBody',
    answers: [created('DeviceLinkStarted')],
    see: 'device-api',
  },
  'POST /directory/v3/devices/list': {
    summary: "The user's devices",
    description: 'An unknown user has none.',
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [ok(list('Device'))],
    see: 'objects',
  },
  'DELETE /directory/v3/devices': {
    summary: 'Unlink a device',
    description: 'It cannot sign again; an unknown user or device is 404.',
    subject: 'dir',
    body: 'UnlinkDeviceBody',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'device-api',
  },
  'POST /directory/v3/sessions/list': {
    summary: "The user's sessions",
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [ok(list('Session'))],
    errors: ['HTTP-404'],
    see: 'sessions',
  },
  'DELETE /directory/v3/sessions': {
    summary: "End all of the user's sessions",
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'sessions',
  },
  'POST /directory/v3/totp': {
    summary: 'A new TOTP secret for the user',
    description:
      'Replaces any earlier one, its failure count and its lock; the user is created if needed. The secret is shown once.',
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [created('TotpSetup')],
    see: 'totp',
  },
  'DELETE /directory/v3/totp': {
    summary: "Remove the user's TOTP",
    description: 'Succeeds for an unknown identifier too.',
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [done()],
    see: 'totp',
  },
  'POST /directory/v3/totp/item': {
    summary: "The user's TOTP state",
    description: 'Whether it is configured, the failures counted towards the next lock, and the lock.',
    subject: 'dir',
    body: 'IdentifierBody',
    answers: [ok('TotpState')],
    errors: ['HTTP-404'],
    see: 'totp',
  },

  'POST /device/v3/link': {
    summary: 'A device links itself',
    description:
      "Plain JSON over TLS: the device has no key registered yet. It registers its public key, with which it signs every later request; the directory gets a device link completion webhook. A further device of a user who has a linked device awaits that device's confirmation (status awaiting-confirmation) and the webhook comes then; one linked soon after an application unlinked the user's linked devices cools off (answers_from). Failed links are limited per address, per directory (with its SDK keys) and per code: HTTP-429 with a Retry-After past a limit.",
    subject: 'unsigned',
    body: 'LinkDeviceBody',
    answers: [created('DeviceLinked', 'Linked')],
    errors: ['ARG-001', 'KEY-001', 'HTTP-403', 'HTTP-404', 'HTTP-413', 'HTTP-429'],
    see: 'device-api',
  },
  'POST /device/v3/passkey/options': {
    summary: 'WebAuthn options to register a passkey with',
    description:
      'A platform authenticator, user verification required, attestation none, RP id the host of the base URL. The challenge is good for one registration within 5 minutes; asking again replaces it.',
    subject: 'dev',
    answers: [ok('PasskeyOptions')],
    errors: ['HTTP-404'],
    see: 'passkeys',
  },
  'PUT /device/v3/passkey': {
    summary: "Register the device's passkey",
    description:
      'Verified against the challenge of POST /device/v3/passkey/options (origin, RP id, user verification); replaces the passkey the device had. From then on every answer of the device carries an assertion. A registration that does not verify, or whose challenge is gone or expired, is HTTP-403.',
    subject: 'dev',
    body: 'RegisterPasskeyBody',
    answers: [done('Registered')],
    errors: ['ARG-001', 'HTTP-403', 'HTTP-404'],
    see: 'passkeys',
  },
  'GET /device/v3/auths': {
    summary: 'The request this device may answer now',
    description: "None, or its user's pending request if it was offered to this device.",
    subject: 'dev',
    answers: [ok(list('PendingAuthRequest', 'At most one'))],
    see: 'device-api',
  },
  'POST /device/v3/auths/{auth_request}': {
    summary: "The user's answer",
    description:
      'Once, while pending, by a device the request was offered to; the same answer again succeeds again. The service gets an authorization response webhook. Answered is SVC-006, cancelled SVC-007, expired 408. A device with a passkey sends its assertion with every answer: missing is ARG-001, one that does not verify HTTP-403, and the request stays pending.',
    subject: 'dev',
    body: 'AnswerAuthRequestBody',
    answers: [done('Recorded')],
    errors: ['ARG-001', 'HTTP-404', 'HTTP-403', 'SVC-006', 'SVC-007', 'HTTP-408'],
    see: 'device-api',
  },
  'GET /device/v3/sessions': {
    summary: "The services the device's user has sessions with",
    subject: 'dev',
    answers: [ok(list('Session'))],
    see: 'device-api',
  },
  'DELETE /device/v3/sessions': {
    summary: 'Log the user out of a service',
    description: 'The service gets a session ended webhook; no such session is 404.',
    subject: 'dev',
    body: 'EndDeviceSessionBody',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'device-api',
  },
  'GET /device/v3/link': {
    summary: "How this device's link stands",
    description:
      'Linked (with answers_from while it cools off), awaiting confirmation, or expired. A device awaiting confirmation may sign this request and DELETE /device/v3/link, nothing else.',
    subject: 'dev',
    answers: [ok('LinkState')],
    errors: ['HTTP-404'],
    see: 'device-confirmation',
  },
  'GET /device/v3/link-requests': {
    summary: "The user's new devices waiting for this device to confirm them",
    description: 'Empty for a device that may not confirm (one still cooling off).',
    subject: 'dev',
    answers: [ok(list('LinkRequest'))],
    see: 'device-confirmation',
  },
  'POST /device/v3/link-requests/{device_id}': {
    summary: 'Approve or refuse a new device',
    description:
      'Approved, the new device is linked and the directory gets its device link completion webhook; refused, it is gone with its key. Only a linked device that may answer for the user decides (HTTP-403 while it cools off); a device that no longer waits is 404, one whose wait ended 408.',
    subject: 'dev',
    body: 'AnswerLinkRequestBody',
    answers: [done()],
    errors: ['ARG-001', 'HTTP-403', 'HTTP-404', 'HTTP-408'],
    see: 'device-confirmation',
  },
  'DELETE /device/v3/link': {
    summary: 'The device unlinks itself',
    description: 'It cannot sign again.',
    subject: 'dev',
    answers: [done()],
    errors: ['HTTP-404'],
    see: 'device-api',
  },
  'GET /device/v3/push': {
    summary: "The VAPID public key to subscribe with, and the device's push channel",
    subject: 'dev',
    answers: [ok('PushSettings')],
    errors: ['HTTP-404', 'HTTP-503'],
    see: 'push',
  },
  'PUT /device/v3/push': {
    summary: "Register the device's push channel",
    description:
      'One channel per device: a new one replaces the old. An endpoint the webhook address guard refuses is ARG-001.',
    subject: 'dev',
    body: 'RegisterPushBody',
    answers: [done()],
    errors: ['ARG-001', 'HTTP-404'],
    see: 'push',
  },
  'DELETE /device/v3/push': {
    summary: "Remove the device's push channel",
    description: 'Idempotent. The device still sees its requests on GET /device/v3/auths.',
    subject: 'dev',
    answers: [done()],
    see: 'push',
  },
};
