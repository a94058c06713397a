import { type AuditRecord, auditOutcomes } from '#shared/audit/audit-record';
import type { AuditRecordsAnswer } from '#shared/audit/list-audit-records';
import type { DenialReason } from '#shared/domain/auth-request';
import type { DirectoryView } from '#shared/domain/directory';
import { KeyType } from '#shared/domain/entity-key';
import type { ServiceView } from '#shared/domain/service';
import { DeviceStatus } from '#shared/domain/user';
import { errorStatus } from '#shared/errors';
import type { V1ErrorBody } from '#shared/protocol/legacy-packages';
import type { AuthorizationResponse } from '#shared/use-cases/auth-request-outcomes';
import type { CreatedAuthRequest } from '#shared/use-cases/create-auth-request';
import type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
import type { LinkRequestView, LinkStateView, NamedEntity } from '#shared/use-cases/device-confirmation';
import type { listDevices, StartedLink } from '#shared/use-cases/devices';
import type { EntityKeyView } from '#shared/use-cases/entity-keys';
import type { linkDevice } from '#shared/use-cases/link-device';
import type { PushSettingsView } from '#shared/use-cases/push-settings';
import type { SessionView } from '#shared/use-cases/sessions';
import type { TotpSetup, TotpState } from '#shared/use-cases/totp';
import { type JsonSchema, schemaRef } from '#shared/http/openapi/json-schema';

/*
 * What the API answers, written by hand: no schema validates an answer. Each object is typed by the interface the
 * code answers with, so a field added there and not here (or the other way round) does not compile.
 */

/** Every key of T, optional ones included. */
type Properties<T> = { readonly [K in keyof Required<T>]: JsonSchema };

/** An object with exactly these properties; all are present unless named in `optional`. */
function object<T>(
  properties: Properties<T>,
  description?: string,
  optional: readonly (keyof T & string)[] = [],
): JsonSchema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    properties,
    required: Object.keys(properties).filter((key) => !optional.includes(key as keyof T & string)),
    additionalProperties: false,
  };
}

const text = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description === undefined ? {} : { description }),
});
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const ref = (name: ResponseSchemaName): JsonSchema => ({ $ref: schemaRef(name) });
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const dateTime: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601, UTC' };
const flag: JsonSchema = { type: 'boolean' };
const pem = text('PEM SPKI public key');
export const arrayOf = (schema: JsonSchema, description?: string): JsonSchema => ({
  type: 'array',
  ...(description === undefined ? {} : { description }),
  items: schema,
});

const authorizationResponse = {
  auth: nullable(
    text('The legacy package, base64, when the device sent one (docs/protocol.md#answer-packages)'),
  ),
  auth_jwe: text("The device's answer, a compact JWE to public_key_id (docs/protocol.md#auth_jwe)"),
  service_user_hash: text('Stable per service and user, not reversible'),
  org_user_hash: text('Stable per organization and user, not reversible'),
  user_push_id: text('Stable per service and user; works as username'),
  public_key_id: text('The kid of the requester key auth_jwe is sealed to'),
} satisfies Properties<AuthorizationResponse>;

/** Every answer body, by the name the document gives it. */
export const responseSchemas = {
  ErrorBody: object<{ error_code: string; error_detail: string; error_data?: unknown }>(
    {
      error_code: { type: 'string', enum: Object.keys(errorStatus) },
      error_detail: text('What was wrong, naming the field'),
      error_data: { type: 'object', description: 'Details some codes carry (SVC-005, HTTP-429)' },
    },
    'An error (docs/protocol.md#errors)',
    ['error_data'],
  ),
  BusyErrorData: object<{ auth_request: string; from_same_service: boolean; expires: string }>(
    {
      auth_request: { ...uuid, description: 'The pending request' },
      from_same_service: { ...flag, description: 'Whether this service made it' },
      expires: dateTime,
    },
    "SVC-005's error_data: the user's pending request",
  ),
  RetryErrorData: object<{ retry_after: number }>(
    {
      retry_after: {
        type: 'integer',
        minimum: 1,
        description: 'Seconds until the window ends; also in the Retry-After header',
      },
    },
    "HTTP-429's error_data: when a link may be tried again",
  ),
  Created: object<{ id: string }>({ id: uuid }),
  AuditRecords: object<AuditRecordsAnswer>(
    {
      records: arrayOf({ $ref: schemaRef('AuditRecord') }, 'Oldest first'),
      cursor: text('Send it back with the same range and filters for the next page; absent on the last'),
    },
    undefined,
    ['cursor'],
  ),
  AuditRecord: object<AuditRecord>(
    {
      organization_id: uuid,
      time: {
        type: 'string',
        format: 'date-time',
        description: 'When the request arrived, ISO 8601 with milliseconds',
      },
      request_id: text("API Gateway's request id"),
      source_ip: text("The caller's address"),
      actor_type: {
        type: 'string',
        enum: ['org', 'dir', 'svc', 'dev', 'operator', 'console'],
        description:
          'The kind of entity that signed; `operator` for the admin CLI, `console` for an admin in the console',
      },
      actor_id: text(
        'The entity that signed; `admin-cli:<account>`, or `console:<admin id>` for a console admin',
      ),
      kid: text('The key it signed with'),
      subject: text('The entity it acted for (`svc:<id>`), when not itself'),
      operation: text('Method and route: `POST /service/v3/auths`'),
      directory_id: uuid,
      service_id: uuid,
      user: text("The directory user's identifier"),
      device_id: uuid,
      auth_request_id: uuid,
      target_id: text('The entity or key the operation created, changed or removed'),
      outcome: {
        type: 'string',
        enum: [...auditOutcomes],
        description: '2xx success, 4xx refused, 5xx failed',
      },
      status: { type: 'integer', description: 'The HTTP status answered' },
      error_code: text('The error code answered, on a refusal or failure'),
      auth_event: {
        type: 'string',
        enum: ['created', 'answered', 'denied-as-fraud', 'cancelled', 'ended-by-wrong-codes', 'expired'],
        description:
          "What the operation did to an authorization request (the service never sees the answer's content)",
      },
      admin_role: text("A console action's: the admin's role when they acted"),
      admin_name: text("A console action's: the admin's name when they acted"),
      session_id: text("A console action's: the admin's session (a short id, never its token)"),
    },
    'One entry of the audit trail: never a secret, a code, a key or an answer',
    [
      'kid',
      'subject',
      'directory_id',
      'service_id',
      'user',
      'device_id',
      'auth_request_id',
      'target_id',
      'error_code',
      'auth_event',
      'admin_role',
      'admin_name',
      'session_id',
    ],
  ),
  KeyAdded: object<{ key_id: string }>({ key_id: text('The kid (docs/protocol.md#key-ids)') }),
  SdkKeyGenerated: object<{ sdk_key: string }>({ sdk_key: uuid }),
  Directory: object<DirectoryView>(
    {
      id: uuid,
      name: text(),
      active: flag,
      premium: { ...flag, description: 'Always false' },
      service_ids: arrayOf(uuid),
      sdk_keys: arrayOf(uuid),
      android_key: nullable(
        text(
          'service-account:<client_email>#<key id> for a service-account file; any other android_key as given',
        ),
      ),
      ios_certificate_fingerprint: nullable(text('SHA-256 of the ios_p12 push certificate')),
      denial_context_inquiry_enabled: flag,
      webhook_url: nullable(text()),
    },
    'A directory (docs/protocol.md#objects)',
  ),
  Service: object<ServiceView>(
    {
      id: uuid,
      name: text(),
      description: nullable(text()),
      icon: text('The generic icon URL when none was set'),
      callback_url: nullable(text()),
      active: flag,
    },
    'A service (docs/protocol.md#objects)',
  ),
  PublicKeyEntry: object<EntityKeyView>(
    {
      id: text('The kid (docs/protocol.md#key-ids)'),
      public_key: pem,
      date_created: dateTime,
      date_expires: nullable(dateTime),
      active: flag,
      key_type: {
        type: 'integer',
        enum: Object.values(KeyType),
        description: '0 both, 1 encryption, 2 signature',
      },
    },
    "An entity's public key (docs/protocol.md#objects)",
  ),
  Policy: {
    type: 'object',
    description: 'A service policy in its normalised form (docs/protocol.md#policies)',
  },
  CreatedAuthRequest: object<CreatedAuthRequest>(
    {
      auth_request: uuid,
      push_package: text("A JWS by the API's key naming the request, for the application's own app"),
      device_ids: arrayOf(uuid, 'The devices the request was offered to'),
      number_match_code: text(
        'Extension: only for a request created with number_matching, the code for the application to show',
      ),
    },
    'docs/protocol.md#creating-a-request',
    ['number_match_code'],
  ),
  AuthorizationResponse: object<AuthorizationResponse>(
    authorizationResponse,
    "The device's answer, end-to-end encrypted (docs/protocol.md#authorization-response)",
  ),
  TotpValidity: object<{ valid: boolean }>({ valid: flag }),
  TotpSetup: object<TotpSetup>(
    {
      secret: text('32 base32 characters, shown once'),
      algorithm: { type: 'string', const: 'SHA1' },
      period: { type: 'integer', const: 30 },
      digits: { type: 'integer', const: 6 },
    },
    'docs/protocol.md#totp',
  ),
  TotpState: object<TotpState>(
    {
      configured: flag,
      failed_attempts: { type: 'integer', minimum: 0 },
      locked: flag,
      locked_until: nullable(dateTime),
    },
    'docs/protocol.md#totp',
  ),
  DeviceLinkStarted: object<StartedLink>(
    {
      qrcode: text('URL of a PNG of the code (GET /public/v3/qrcodes/{code})'),
      code: text('8 characters'),
      device_id: uuid,
    },
    'docs/protocol.md#device-api',
  ),
  Device: object<Awaited<ReturnType<typeof listDevices>>[number]>(
    {
      id: uuid,
      name: nullable(text()),
      type: nullable(text()),
      status: {
        type: 'integer',
        enum: Object.values(DeviceStatus),
        description: '0 link pending, 1 linked, 2 unlink pending',
      },
      created: dateTime,
      updated: dateTime,
    },
    "A user's device (docs/protocol.md#objects)",
  ),
  Session: object<SessionView>(
    {
      service_id: uuid,
      service_name: text(),
      service_icon: text(),
      auth_request: nullable(uuid),
      date_created: dateTime,
    },
    'A session (docs/protocol.md#sessions)',
  ),
  PushSettings: object<PushSettingsView>(
    {
      vapid_public_key: text(
        "The service's VAPID public key (uncompressed P-256, base64url): the browser's applicationServerKey",
      ),
      channel: { anyOf: [{ type: 'string', enum: ['webpush'] }, { type: 'null' }] },
    },
    "The device's push settings (docs/protocol.md#push)",
  ),
  DeviceLinked: object<Awaited<ReturnType<typeof linkDevice>>>(
    {
      device_id: uuid,
      directory_id: uuid,
      status: {
        type: 'string',
        enum: ['awaiting-confirmation'],
        description: "Present when one of the user's linked devices must confirm this one first",
      },
      expires: { ...dateTime, description: 'Until when it may be confirmed, with status' },
      answers_from: {
        ...dateTime,
        description: 'Present while the device cools off after an unlink: it answers nothing before then',
      },
    },
    'docs/protocol.md#device-confirmation',
    ['status', 'expires', 'answers_from'],
  ),
  LinkState: object<LinkStateView>(
    {
      device_id: uuid,
      directory_id: uuid,
      status: { type: 'string', enum: ['linked', 'awaiting-confirmation', 'expired'] },
      directory: object<NamedEntity>(
        { id: uuid, name: text() },
        'The directory the device answers for, by name: with status linked',
      ),
      organization: object<NamedEntity>(
        { id: uuid, name: text() },
        "The directory's organization, by name: with status linked",
      ),
      expires: { ...dateTime, description: 'Until when a link awaiting confirmation may be confirmed' },
      answers_from: { ...dateTime, description: 'While the device cools off: when it may start answering' },
    },
    "How the device's link stands (docs/protocol.md#device-confirmation)",
    ['directory', 'organization', 'expires', 'answers_from'],
  ),
  LinkRequest: object<LinkRequestView>(
    {
      device_id: uuid,
      name: nullable(text()),
      type: nullable(text()),
      directory: object<LinkRequestView['directory']>({ id: uuid, name: text() }),
      requested: dateTime,
      expires: dateTime,
    },
    'A new device of the user waiting for confirmation (docs/protocol.md#device-confirmation)',
  ),
  PendingAuthRequest: object<PendingAuthRequestView>(
    {
      auth_request: uuid,
      service: object<PendingAuthRequestView['service']>({ id: uuid, name: text(), icon: nullable(text()) }),
      title: nullable(text()),
      context: nullable(text()),
      push_title: nullable(text()),
      push_body: nullable(text()),
      policy: { type: 'object', description: 'The effective policy (docs/protocol.md#effective-policy)' },
      denial_reasons: nullable(arrayOf(object<DenialReason>({ id: text(), reason: text(), fraud: flag }))),
      created: dateTime,
      expires: dateTime,
      requester: object<PendingAuthRequestView['requester']>(
        { entity: text('org:, dir: or svc: and its id'), kid: text(), public_key: pem },
        'Who asked; auth_jwe and auth are sealed to this key',
      ),
      service_key: nullable(
        object<NonNullable<PendingAuthRequestView['service_key']>>(
          { kid: text(), public_key: pem },
          'The v1 package is sealed to this key',
        ),
      ),
      device_ids: arrayOf(uuid),
      number_match: {
        type: 'boolean',
        enum: [true],
        description: 'Present only when the answer needs the code the application shows',
      },
      passkey_required: {
        type: 'boolean',
        enum: [true],
        description:
          'Present only when the directory takes inherence only proven with a passkey and the policy asks for it: a device without a passkey cannot answer',
      },
      webauthn: object<NonNullable<PendingAuthRequestView['webauthn']>>(
        {
          challenge: text('base64url; bound to this request and this device'),
          rp_id: text('The WebAuthn RP id: the host of the base URL'),
          allow_credentials: arrayOf(text("The device's passkey credential id, base64url")),
        },
        "Present only when the device has a passkey: its answer must carry the passkey's assertion over this challenge (docs/protocol.md#passkeys)",
      ),
    },
    'A request the device may answer (docs/protocol.md#device-api)',
    ['number_match', 'webauthn'],
  ),
  PasskeyOptions: {
    type: 'object',
    description:
      "WebAuthn registration options (PublicKeyCredentialCreationOptionsJSON), for the browser's navigator.credentials.create() (docs/protocol.md#passkeys)",
  },
  Ping: object<{ api_time: string }>({ api_time: dateTime }),
  V1Ping: object<{ key: string; launchkey_time: string; date_stamp: string }>({
    key: pem,
    launchkey_time: text('%Y-%m-%d %H:%M:%S, UTC'),
    date_stamp: text('The same as launchkey_time'),
  }),
  V1Poll: object<{ auth: string; user_hash: string; organization_user?: string }>(
    {
      auth: text("The device's v1 package, encrypted to the service's key, base64"),
      user_hash: text(),
      organization_user: text('For Organization Services'),
    },
    'docs/protocol.md#legacy-v1',
    ['organization_user'],
  ),
  V1Error: object<V1ErrorBody>(
    {
      successful: { type: 'boolean', const: false },
      status_code: { type: 'integer' },
      message: text(),
      message_code: {
        type: 'integer',
        description: '70401 credentials, 70402 unknown, 70403 pending, 70404 expired',
      },
      response: text(),
    },
    'docs/protocol.md#legacy-v1',
  ),
  AuthorizationResponseEvent: object<AuthorizationResponse & { type: string }>(
    { type: { type: 'string', const: 'AUTHORIZATION_RESPONSE' }, ...authorizationResponse },
    'docs/protocol.md#webhooks',
  ),
  SessionEndedEvent: object<{ service_user_hash: string; api_time: string }>(
    { service_user_hash: text(), api_time: dateTime },
    'docs/protocol.md#webhooks',
  ),
  DeviceLinkCompletionEvent: object<{
    type: string;
    device_id: string;
    device_public_key: string;
    device_public_key_id: string;
  }>(
    {
      type: { type: 'string', const: 'DEVICE_LINK_COMPLETION' },
      device_id: uuid,
      device_public_key: pem,
      device_public_key_id: text('The kid (docs/protocol.md#key-ids)'),
    },
    'docs/protocol.md#webhooks',
  ),
} as const satisfies Readonly<Record<string, JsonSchema>>;

export type ResponseSchemaName = keyof typeof responseSchemas;

/** A reference to an answer body. */
export const responseRef = ref;
