import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '#infra/routes';
import { policyLimits } from '#shared/domain/policy/limits';
import { maxRequestBodyBytes } from '#shared/http/event';
import * as auditSchemas from '#shared/http/schemas/audit';
import * as authRequestSchemas from '#shared/http/schemas/auth-requests';
import * as deviceSchemas from '#shared/http/schemas/devices';
import * as directorySchemas from '#shared/http/schemas/directories';
import { type KeyBodies, keyBodies } from '#shared/http/schemas/keys';
import * as serviceSchemas from '#shared/http/schemas/services';
import * as userSchemas from '#shared/http/schemas/users';
import { keyId } from '#shared/protocol/kid';
import {
  type CheckedAnswer,
  type FuzzTarget,
  type RawRequest,
  type Signer,
  startFuzzTarget,
} from '#test/support/fuzz-harness';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { rsaKeyPair } from '#test/support/keys';
import { makeServiceAccount } from '#test/support/service-account';
import {
  circle,
  largestRequestPolicy,
  largestServicePolicy,
  legacyPolicy,
  territory,
  timeFence,
  times,
  wide,
} from '#test/support/largest-policy';
import { type SchemaField, schemaFields } from '#test/support/schema-fields';
import { setUpTenant } from '#test/support/tenant';

/**
 * Every bound of every request body, at the bound and one past it. A table names, for each route that takes a body,
 * each of its schema's fields with its limit and the largest value it accepts; the largest value gets the route's
 * success (or a documented error that has nothing to do with size), one past it the documented 4xx: ARG-001 naming the
 * field, SVC-002 naming the policy field and the limit, 413 for the body. No answer is a 5xx (the harness checks every
 * one). The table is checked against the schemas themselves, so a field added without a limit, or a limit changed in
 * one place only, fails here.
 */
let target: FuzzTarget;
let fixture: Fixture;
let table: RouteLimits[];

beforeAll(async () => {
  target = await startFuzzTarget();
  fixture = await setUpFixture();
  table = routeTable(fixture);
}, 120_000);
afterAll(async () => {
  await target?.stop();
});

interface Outcome {
  readonly status: number;
  readonly code?: string;
}

/** One bound of one field. */
interface FieldLimit {
  /** The field as `schemaFields` names it (`denial_reasons[].reason`). */
  readonly field: string;
  /** Which bound, when a field has more than the length its schema declares (a policy's, a key's modulus). */
  readonly bound?: keyof typeof policyLimits | 'modulusBits';
  readonly limit: number;
  readonly unit: 'characters' | 'items' | 'seconds' | 'milliseconds' | 'bytes' | 'metres' | 'bits' | 'value';
  /** The value of the body's top-level key holding the field, at the limit and one past it. */
  readonly largest: () => unknown;
  readonly past: () => unknown;
  /** What the largest value gets, when it is not what the route's own body gets. */
  readonly accepted?: Outcome;
  /** The start of the refusal's detail: the field's path. */
  readonly refusedAt: string;
  readonly refusal?: Outcome;
  /** The field's top-level key makes the whole body (one of several keys a body holds exactly one of). */
  readonly alone?: boolean;
}

interface RouteLimits {
  readonly method: string;
  readonly path: string;
  /** The name of its body schema in shared/http/schemas. */
  readonly schema: string;
  /** Who signs: the demo organization acting for `subject`, the linked device, or nobody (the device's link). */
  readonly signer: 'organization' | 'device' | 'none';
  readonly subject?: string;
  /** A body the route accepts, made afresh for each request (names stay unique, codes unused). */
  readonly body: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** What that body gets. */
  readonly accepted: Outcome;
  /** The request target for a body that passes the schema, when the path takes a parameter. */
  readonly target?: () => Promise<string>;
  /** Undoes what an accepted request did, so the next one finds the same state. */
  readonly after?: (answer: CheckedAnswer) => Promise<void>;
  readonly fields: readonly FieldLimit[];
}

interface Fixture {
  readonly organization: string;
  /** A directory with denial reasons enabled, its Directory Service, and a user whose identifier is as long as any. */
  readonly directoryId: string;
  readonly sdkKey: string;
  readonly serviceId: string;
  readonly identifier: string;
  readonly device: Signer;
  /** Entities whose settings the update rows may change: a directory, an Organization and a Directory Service. */
  readonly spareDirectoryId: string;
  readonly organizationServiceId: string;
  readonly directoryServiceId: string;
  /** A key of each of them, to update. */
  readonly kids: Readonly<Record<'directory' | 'organizationService' | 'directoryService', string>>;
  /** As many ids as a list request takes, all the caller's: the spare entity's first. */
  readonly owned: Readonly<
    Record<'directories' | 'organizationServices' | 'directoryServices', readonly string[]>
  >;
}

// ---------------------------------------------------------------------------------------------------------------
// Values

/** A display name that NFKC makes eighteen times longer (U+FDFA), the worst case of a name claim's key. */
const expandingName = (length: number) => `${wide(8)}${'\ufdfa'.repeat(length - 8)}`;

const urlPrefix = 'https://limits.invalid/';
const wideUrl = (length: number) => `${urlPrefix}${wide(length - urlPrefix.length)}`;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** `policy` padded with an unknown key to exactly `bytes` of compact JSON: its size is refused before its keys. */
function policyOfBytes(policy: Record<string, unknown>, bytes: number): Record<string, unknown> {
  const padding = bytes - jsonBytes({ ...policy, padding: '' });
  return { ...policy, padding: 'p'.repeat(padding) };
}

const denialReasonList = (count: number, reasonLength = 500, override: Record<string, unknown> = {}) =>
  times(count, (index) => ({
    id: wide(5),
    reason: wide(reasonLength),
    fraud: index === 0 ? 'true' : 'false',
    ...(index === count - 1 ? override : {}),
  }));

const alphaP12 = readFileSync(new URL('../fixtures/alpha.p12.base64', import.meta.url), 'utf8').trim();
const pushP12 = readFileSync(new URL('../fixtures/apns/push.p12.base64', import.meta.url), 'utf8').trim();
const serviceAccount = makeServiceAccount();
/** A service-account key file, followed by spaces to the length given. */
const paddedServiceAccount = (length: number) =>
  `${serviceAccount.json}${' '.repeat(length - serviceAccount.json.length)}`;
/** A real push certificate, wrapped with line breaks (which the SDKs add) to the length given. */
const paddedP12 = (length: number) => `${alphaP12}${'\n'.repeat(length - alphaP12.length)}`;
/** A fresh PEM public key, followed by line breaks to the length given. */
const paddedPem = (length: number) => {
  const pem = rsaKeyPair().publicPem;
  return `${pem}${'\n'.repeat(length - pem.length)}`;
};
const longDate = (length: number) => `2099-01-01T00:00:00.${'1'.repeat(length - 21)}Z`;

/** A day of the audit rows' range, its fraction of a second as long as asked. */
const auditDate = (day: string) => (length: number) => `${day}T00:00:00.${'1'.repeat(length - 21)}Z`;
const auditQuery = { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' };

/**
 * A cursor of the audit endpoint's shape (base64url JSON of the organization and a record key in the range), padded
 * to `length` characters with a field the endpoint ignores. Base64url has no length of the form 4n + 1: such a
 * length, one past the longest, gets a stray character, and is refused by its length before anything decodes it.
 */
function auditCursor(organizationId: string, length: number): string {
  if (length % 4 === 1) return `${auditCursor(organizationId, length - 1)}A`;
  const cursor = (pad: string) =>
    Buffer.from(
      JSON.stringify({ o: organizationId, k: `2026-01-01T12:00:00.000Z#${'A'.repeat(22)}`, p: pad }),
    ).toString('base64url');
  let pad = '';
  while (cursor(pad).length < length) pad += 'x';
  return cursor(pad);
}

// ---------------------------------------------------------------------------------------------------------------
// Table helpers

const argument: Outcome = { status: 400, code: 'ARG-001' };
const badPolicy: Outcome = { status: 400, code: 'SVC-002' };

function text(field: string, limit: number, make: (length: number) => string = wide): FieldLimit {
  return {
    field,
    limit,
    unit: 'characters',
    largest: () => make(limit),
    past: () => make(limit + 1),
    refusedAt: field,
  };
}

/** A PEM public key: its length, and its RSA modulus, which OpenSSL uses up to 16384 bits. */
function publicKeyFields(): FieldLimit[] {
  return [
    text('public_key', 16_384, paddedPem),
    {
      field: 'public_key',
      bound: 'modulusBits',
      limit: 16_384,
      unit: 'bits',
      largest: () => rsaPublicKeyOfBits(16_384),
      // The next size a PEM can spell.
      past: () => rsaPublicKeyOfBits(16_392),
      refusedAt: 'public_key: must be an RSA key of at most 16384 bits',
    },
  ];
}

/** A UUID field: 36 characters by its format. */
function uuidField(field: string, value: () => string): FieldLimit {
  return {
    field,
    limit: 36,
    unit: 'characters',
    largest: value,
    past: () => `${value()}0`,
    refusedAt: field,
  };
}

/** A flag given as text: "false" is the longest spelling it takes. */
function flagField(field: string): FieldLimit {
  return {
    field,
    limit: 5,
    unit: 'characters',
    largest: () => 'FALSE',
    past: () => 'FALSE ',
    refusedAt: field,
  };
}

function secondsField(field: string, limit: number): FieldLimit {
  return { field, limit, unit: 'seconds', largest: () => limit, past: () => limit + 1, refusedAt: field };
}

function list(field: string, limit: number, item: (index: number) => unknown): FieldLimit {
  return {
    field,
    limit,
    unit: 'items',
    largest: () => times(limit, item),
    past: () => times(limit + 1, item),
    refusedAt: field,
  };
}

const units = {
  policyBytes: 'bytes',
  fences: 'items',
  timeFences: 'items',
  nameLength: 'characters',
  postalCodeLength: 'characters',
  radiusMetres: 'metres',
} as const satisfies Record<keyof typeof policyLimits, FieldLimit['unit']>;

/** The bounds of a service policy (`PUT .../service/policy`). */
function servicePolicyFields(): FieldLimit[] {
  const policy = (bound: keyof typeof policyLimits, refusedAt: string, make: (limit: number) => unknown) => ({
    field: 'policy',
    bound,
    limit: policyLimits[bound],
    unit: units[bound],
    largest: () => make(policyLimits[bound]),
    past: () => make(policyLimits[bound] + 1),
    refusedAt,
    refusal: badPolicy,
  });
  return [
    policy('fences', 'policy.fences', (count) => ({
      type: 'COND_GEO',
      fences: times(count, () => territory()),
      inside: { type: 'FACTORS', factors: ['INHERENCE', 'KNOWLEDGE', 'POSSESSION'] },
      outside: { type: 'METHOD_AMOUNT', amount: 5 },
      deny_rooted_jailbroken: true,
      deny_emulator_simulator: true,
    })),
    policy('timeFences', 'policy.factors[0].attributes["time fences"]', (count) =>
      legacyPolicy(
        [],
        times(count, () => timeFence()),
      ),
    ),
    policy('nameLength', 'policy.fences[0].name', (length) => ({
      type: 'METHOD_AMOUNT',
      amount: 1,
      fences: [territory(wide(length))],
    })),
    policy('nameLength', 'policy.factors[0].attributes["time fences"][0].name', (length) =>
      legacyPolicy([], [timeFence(wide(length))]),
    ),
    policy('radiusMetres', 'policy.fences[0].radius', (metres) => ({
      type: 'METHOD_AMOUNT',
      amount: 0,
      fences: [{ type: 'GEO_CIRCLE', latitude: 0, longitude: 0, radius: metres }],
    })),
    policy('postalCodeLength', 'policy.fences[0].postal_code', (length) => ({
      type: 'FACTORS',
      factors: ['KNOWLEDGE'],
      fences: [territory(wide(policyLimits.nameLength), wide(length))],
    })),
    // No policy the other bounds allow reaches 16 KB: the largest of them is the largest one accepted.
    {
      ...policy('policyBytes', 'policy: must be at most 16384 bytes', () => largestServicePolicy()),
      past: () => policyOfBytes(largestServicePolicy(), policyLimits.policyBytes + 1),
    },
  ];
}

/** Bounds a policy of an authorization request does not have, and why. */
const requestPolicyExemptions: Partial<Record<keyof typeof policyLimits, string>> = {
  timeFences: 'a request takes no time fences at all',
  postalCodeLength: 'a request takes only LEGACY circles, which have no postal code',
};

/** The bounds of an authorization request's policy. */
function requestPolicyFields(): FieldLimit[] {
  const locations = 'policy.factors[0].attributes.locations';
  return [
    {
      field: 'policy',
      bound: 'fences',
      limit: policyLimits.fences,
      unit: 'items',
      largest: () => legacyPolicy(times(policyLimits.fences, () => circle())),
      past: () => legacyPolicy(times(policyLimits.fences + 1, () => circle())),
      refusedAt: locations,
      refusal: badPolicy,
    },
    {
      field: 'policy',
      bound: 'nameLength',
      limit: policyLimits.nameLength,
      unit: 'characters',
      largest: () => legacyPolicy([circle(wide(policyLimits.nameLength))]),
      past: () => legacyPolicy([circle(wide(policyLimits.nameLength + 1))]),
      refusedAt: `${locations}[0].name`,
      refusal: badPolicy,
    },
    {
      field: 'policy',
      bound: 'radiusMetres',
      limit: policyLimits.radiusMetres,
      unit: 'metres',
      largest: () => legacyPolicy([{ ...circle(), radius: policyLimits.radiusMetres }]),
      past: () => legacyPolicy([{ ...circle(), radius: policyLimits.radiusMetres + 1 }]),
      refusedAt: `${locations}[0].radius`,
      refusal: badPolicy,
    },
    {
      field: 'policy',
      bound: 'policyBytes',
      limit: policyLimits.policyBytes,
      unit: 'bytes',
      largest: largestRequestPolicy,
      past: () => policyOfBytes(largestRequestPolicy(), policyLimits.policyBytes + 1),
      refusedAt: `policy: must be at most ${policyLimits.policyBytes} bytes`,
      refusal: badPolicy,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// The table

function routeTable(fx: Fixture): RouteLimits[] {
  const org = fx.organization;
  const dir = `dir:${fx.directoryId}`;
  const svc = `svc:${fx.serviceId}`;
  const unknownKid = (length: number) => 'k'.repeat(length);
  const serviceRoutes = (
    prefix: string,
    subject: string,
    serviceId: string,
    kid: string,
    owned: readonly string[],
  ): RouteLimits[] => {
    const schema = (operation: keyof KeyBodies) => `keyBodies('service_id').${operation}`;
    const idField = uuidField('service_id', () => serviceId);
    return [
      {
        method: 'POST',
        path: `${prefix}/services`,
        schema: 'createServiceBody',
        signer: 'organization',
        subject,
        body: () => ({
          name: `Limits ${randomUUID()}`,
          description: 'd',
          icon: `${urlPrefix}i`,
          callback_url: null,
          active: true,
        }),
        accepted: { status: 201 },
        fields: [
          text('name', 200, expandingName),
          text('description', 1000),
          text('icon', 2048, wideUrl),
          text('callback_url', 2048, wideUrl),
          flagField('active'),
        ],
      },
      {
        method: 'POST',
        path: `${prefix}/services/list`,
        schema: 'listServicesByIdsBody',
        signer: 'organization',
        subject,
        body: () => ({ service_ids: [serviceId] }),
        accepted: { status: 200 },
        fields: [
          {
            ...list('service_ids', 100, () => undefined),
            largest: () => owned,
            past: () => [...owned, randomUUID()],
          },
          {
            ...uuidField('service_ids[]', () => serviceId),
            largest: () => [serviceId],
            past: () => [`${serviceId}0`],
            refusedAt: 'service_ids.0',
          },
        ],
      },
      {
        method: 'PATCH',
        path: `${prefix}/services`,
        schema: 'updateServiceBody',
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId, description: 'd', active: true }),
        accepted: { status: 204 },
        fields: [
          idField,
          text('name', 200, expandingName),
          text('description', 1000),
          text('icon', 2048, wideUrl),
          text('callback_url', 2048, wideUrl),
          flagField('active'),
        ],
      },
      {
        method: 'POST',
        path: `${prefix}/service/keys`,
        schema: schema('add'),
        signer: 'organization',
        subject,
        body: () => ({
          service_id: serviceId,
          public_key: rsaKeyPair().publicPem,
          date_expires: '2099-01-01T00:00:00Z',
          active: true,
          key_type: 2,
        }),
        accepted: { status: 201 },
        fields: [idField, ...publicKeyFields(), text('date_expires', 64, longDate), flagField('active')],
      },
      {
        method: 'POST',
        path: `${prefix}/service/keys/list`,
        schema: schema('list'),
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId }),
        accepted: { status: 200 },
        fields: [idField],
      },
      {
        method: 'PATCH',
        path: `${prefix}/service/keys`,
        schema: schema('update'),
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId, key_id: kid, active: true, date_expires: null }),
        accepted: { status: 204 },
        fields: [
          idField,
          { ...text('key_id', 128, unknownKid), accepted: { status: 400, code: 'KEY-003' } },
          flagField('active'),
          text('date_expires', 64, longDate),
        ],
      },
      {
        method: 'DELETE',
        path: `${prefix}/service/keys`,
        schema: schema('remove'),
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId, key_id: unknownKid(47) }),
        accepted: { status: 400, code: 'KEY-003' },
        fields: [idField, text('key_id', 128, unknownKid)],
      },
      {
        method: 'POST',
        path: `${prefix}/service/policy/item`,
        schema: 'serviceIdBody',
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId }),
        accepted: { status: 200 },
        fields: [idField],
      },
      {
        method: 'PUT',
        path: `${prefix}/service/policy`,
        schema: 'setServicePolicyBody',
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId, policy: { type: 'METHOD_AMOUNT', amount: 1 } }),
        accepted: { status: 204 },
        fields: [idField, ...servicePolicyFields()],
      },
      {
        method: 'DELETE',
        path: `${prefix}/service/policy`,
        schema: 'serviceIdBody',
        signer: 'organization',
        subject,
        body: () => ({ service_id: serviceId }),
        accepted: { status: 204 },
        fields: [idField],
      },
    ];
  };

  const directoryKeySchema = (operation: keyof KeyBodies) => `keyBodies('directory_id').${operation}`;
  const spareDirectory = uuidField('directory_id', () => fx.spareDirectoryId);
  const identifier = text('identifier', 256);
  const username = text('username', 256);

  return [
    {
      method: 'POST',
      path: '/organization/v3/directories',
      schema: 'createDirectoryBody',
      signer: 'organization',
      subject: org,
      body: () => ({ name: `Limits ${randomUUID()}` }),
      accepted: { status: 201 },
      fields: [text('name', 200, expandingName)],
    },
    {
      method: 'POST',
      path: '/organization/v3/directories/list',
      schema: 'listDirectoriesByIdsBody',
      signer: 'organization',
      subject: org,
      body: () => ({ directory_ids: [fx.spareDirectoryId] }),
      accepted: { status: 200 },
      fields: [
        {
          ...list('directory_ids', 100, () => undefined),
          largest: () => fx.owned.directories,
          past: () => [...fx.owned.directories, randomUUID()],
        },
        {
          ...uuidField('directory_ids[]', () => fx.spareDirectoryId),
          largest: () => [fx.spareDirectoryId],
          past: () => [`${fx.spareDirectoryId}0`],
          refusedAt: 'directory_ids.0',
        },
      ],
    },
    {
      method: 'PATCH',
      path: '/organization/v3/directories',
      schema: 'updateDirectoryBody',
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId, active: true, android_key: serviceAccount.json }),
      accepted: { status: 204 },
      fields: [
        spareDirectory,
        flagField('active'),
        text('android_key', 8192, paddedServiceAccount),
        text('ios_p12', 65_536, paddedP12),
        flagField('denial_context_inquiry_enabled'),
        text('webhook_url', 2048, wideUrl),
      ],
    },
    {
      method: 'POST',
      path: '/organization/v3/directory/keys',
      schema: directoryKeySchema('add'),
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId, public_key: rsaKeyPair().publicPem, key_type: 1 }),
      accepted: { status: 201 },
      fields: [spareDirectory, ...publicKeyFields(), text('date_expires', 64, longDate), flagField('active')],
    },
    {
      method: 'POST',
      path: '/organization/v3/directory/keys/list',
      schema: directoryKeySchema('list'),
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId }),
      accepted: { status: 200 },
      fields: [spareDirectory],
    },
    {
      method: 'PATCH',
      path: '/organization/v3/directory/keys',
      schema: directoryKeySchema('update'),
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId, key_id: fx.kids.directory, active: true }),
      accepted: { status: 204 },
      fields: [
        spareDirectory,
        { ...text('key_id', 128, unknownKid), accepted: { status: 400, code: 'KEY-003' } },
        flagField('active'),
        text('date_expires', 64, longDate),
      ],
    },
    {
      method: 'DELETE',
      path: '/organization/v3/directory/keys',
      schema: directoryKeySchema('remove'),
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId, key_id: unknownKid(47) }),
      accepted: { status: 400, code: 'KEY-003' },
      fields: [spareDirectory, text('key_id', 128, unknownKid)],
    },
    {
      method: 'POST',
      path: '/organization/v3/directory/sdk-keys',
      schema: 'directoryIdBody',
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId }),
      accepted: { status: 201 },
      fields: [spareDirectory],
    },
    {
      method: 'POST',
      path: '/organization/v3/directory/sdk-keys/list',
      schema: 'directoryIdBody',
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId }),
      accepted: { status: 200 },
      fields: [spareDirectory],
    },
    {
      method: 'DELETE',
      path: '/organization/v3/directory/sdk-keys',
      schema: 'removeSdkKeyBody',
      signer: 'organization',
      subject: org,
      body: () => ({ directory_id: fx.spareDirectoryId, sdk_key: randomUUID() }),
      accepted: { status: 400, code: 'ORG-006' },
      fields: [spareDirectory, uuidField('sdk_key', () => randomUUID())],
    },
    {
      method: 'POST',
      path: '/organization/v3/audit/list',
      schema: 'listAuditRecordsBody',
      signer: 'organization',
      subject: org,
      body: () => auditQuery,
      accepted: { status: 200 },
      fields: [
        text('since', 64, auditDate('2026-01-01')),
        text('until', 64, auditDate('2026-01-02')),
        { ...identifier, field: 'user', refusedAt: 'user' },
        uuidField('service', () => fx.serviceId),
        // A cursor of this organization and range, padded with a field the endpoint ignores to the longest it takes.
        text('cursor', 256, (length) => auditCursor(fx.organization.slice('org:'.length), length)),
        {
          field: 'limit',
          limit: 1000,
          unit: 'value',
          largest: () => 1000,
          past: () => 1001,
          refusedAt: 'limit',
        },
      ],
    },
    ...serviceRoutes(
      '/organization/v3',
      org,
      fx.organizationServiceId,
      fx.kids.organizationService,
      fx.owned.organizationServices,
    ),
    ...serviceRoutes(
      '/directory/v3',
      dir,
      fx.directoryServiceId,
      fx.kids.directoryService,
      fx.owned.directoryServices,
    ),
    {
      method: 'POST',
      path: '/service/v3/auths',
      schema: 'createAuthRequestBody',
      signer: 'organization',
      subject: svc,
      body: () => ({
        username: fx.identifier,
        context: 'c',
        title: 't',
        ttl: 300,
        push_title: 'p',
        push_body: 'b',
        denial_reasons: denialReasonList(2, 10),
      }),
      accepted: { status: 201 },
      after: (answer) => cancel((answer.json as { auth_request: string }).auth_request),
      fields: [
        { ...username, largest: () => fx.identifier, past: () => `${fx.identifier}x` },
        text('context', 400),
        text('title', 200),
        secondsField('ttl', 600),
        flagField('number_matching'),
        text('push_title', 200),
        text('push_body', 1000),
        {
          ...list('denial_reasons', 25, () => undefined),
          largest: () => denialReasonList(25, 10),
          past: () => denialReasonList(26, 10),
        },
        {
          ...text('denial_reasons[].id', 5),
          largest: () => denialReasonList(25, 10),
          past: () => denialReasonList(25, 10, { id: wide(6) }),
          refusedAt: 'denial_reasons.24.id',
        },
        {
          ...text('denial_reasons[].reason', 500),
          largest: () => denialReasonList(25),
          past: () => denialReasonList(25, 500, { reason: wide(501) }),
          refusedAt: 'denial_reasons.24.reason',
        },
        {
          ...flagField('denial_reasons[].fraud'),
          largest: () => denialReasonList(25, 10, { fraud: 'FALSE' }),
          past: () => denialReasonList(25, 10, { fraud: 'FALSE ' }),
          refusedAt: 'denial_reasons.24.fraud',
        },
        ...requestPolicyFields(),
      ],
    },
    {
      method: 'POST',
      path: '/service/v3/sessions',
      schema: 'startSessionBody',
      signer: 'organization',
      subject: svc,
      body: () => ({ username: fx.identifier }),
      accepted: { status: 204 },
      fields: [
        { ...username, largest: () => fx.identifier, past: () => `${fx.identifier}x` },
        uuidField('auth_request', () => randomUUID()),
      ],
    },
    {
      method: 'DELETE',
      path: '/service/v3/sessions',
      schema: 'usernameBody',
      signer: 'organization',
      subject: svc,
      body: () => ({ username: fx.identifier }),
      accepted: { status: 204 },
      fields: [{ ...username, largest: () => fx.identifier, past: () => `${fx.identifier}x` }],
    },
    {
      method: 'POST',
      path: '/service/v3/totp',
      schema: 'verifyTotpBody',
      signer: 'organization',
      subject: svc,
      body: () => ({ identifier: fx.identifier, otp: '123456' }),
      accepted: { status: 200 },
      fields: [
        { ...identifier, largest: () => fx.identifier, past: () => `${fx.identifier}x` },
        text('otp', 16),
      ],
    },
    {
      method: 'POST',
      path: '/directory/v3/devices',
      schema: 'startDeviceLinkBody',
      signer: 'organization',
      subject: dir,
      body: () => ({ identifier: `limits-${randomUUID()}`, ttl: 300 }),
      accepted: { status: 201 },
      fields: [identifier, secondsField('ttl', 3600)],
    },
    ...[
      'POST /directory/v3/devices/list',
      'POST /directory/v3/sessions/list',
      'DELETE /directory/v3/sessions',
    ]
      .map((route) => route.split(' ') as [string, string])
      .map(([method, path]): RouteLimits => ({
        method,
        path,
        schema: 'identifierBody',
        signer: 'organization',
        subject: dir,
        body: () => ({ identifier: fx.identifier }),
        accepted: { status: method === 'DELETE' ? 204 : 200 },
        fields: [{ ...identifier, largest: () => fx.identifier, past: () => `${fx.identifier}x` }],
      })),
    {
      method: 'DELETE',
      path: '/directory/v3/devices',
      schema: 'unlinkDeviceBody',
      signer: 'organization',
      subject: dir,
      body: () => ({ identifier: fx.identifier, device_id: randomUUID() }),
      accepted: { status: 404, code: 'HTTP-404' },
      fields: [
        { ...identifier, largest: () => fx.identifier, past: () => `${fx.identifier}x` },
        uuidField('device_id', () => randomUUID()),
      ],
    },
    ...['POST /directory/v3/totp', 'POST /directory/v3/totp/item', 'DELETE /directory/v3/totp']
      .map((route) => route.split(' ') as [string, string])
      .map(([method, path]): RouteLimits => ({
        method,
        path,
        schema: 'identifierBody',
        signer: 'organization',
        subject: dir,
        // A user of its own: a TOTP secret would change what the verify row expects.
        body: () => ({ identifier: `limits-totp-${randomUUID()}` }),
        accepted:
          method === 'DELETE'
            ? { status: 204 }
            : path.endsWith('/item')
              ? { status: 404, code: 'HTTP-404' }
              : { status: 201 },
        fields: [identifier],
      })),
    {
      method: 'POST',
      path: '/device/v3/link',
      schema: 'linkDeviceBody',
      signer: 'none',
      body: async () => ({
        sdk_key: fx.sdkKey,
        code: await linkingCode(`limits-${randomUUID()}`),
        public_key: rsaKeyPair().publicPem,
        name: 'n',
        type: 't',
      }),
      accepted: { status: 201 },
      fields: [
        uuidField('sdk_key', () => fx.sdkKey),
        // Codes are 8 characters: one of 16 can only be unknown.
        { ...text('code', 16, (length) => 'Z'.repeat(length)), accepted: { status: 404, code: 'HTTP-404' } },
        ...publicKeyFields(),
        text('name', 100),
        text('type', 100),
      ],
    },
    {
      method: 'POST',
      path: '/device/v3/auths/{auth_request}',
      schema: 'answerAuthRequestBody',
      signer: 'device',
      body: () => ({ auth_jwe: jwe(200), auth: base64(100), auth_v1: base64(100) }),
      accepted: { status: 204 },
      target: async () => `/device/v3/auths/${await ask()}`,
      fields: [
        text('auth_jwe', 65_536, jwe),
        text('auth', 4096, base64),
        text('auth_v1', 4096, base64),
        flagField('fraud'),
        // Ignored by a request without number matching: the largest is accepted.
        text('number_match_code', 8, (length) => '1'.repeat(length)),
        // A denial in the clear goes without the packages. The fixture's request has no number matching, which
        // refuses the largest one past the schema.
        {
          ...text('deny.denial_reason', 5),
          largest: () => ({ denial_reason: wide(5), fraud: false }),
          past: () => ({ denial_reason: wide(6), fraud: false }),
          alone: true,
          accepted: { status: 400, code: 'ARG-001' },
        },
        {
          ...flagField('deny.fraud'),
          largest: () => ({ fraud: 'FALSE' }),
          past: () => ({ fraud: 'FALSE ' }),
          alone: true,
          accepted: { status: 400, code: 'ARG-001' },
        },
        // The fixture's device has no passkey: the largest assertion is refused for that, and checked for nothing else.
        ...webauthnFields('webauthn', assertion, [
          ['id', 1366],
          ['rawId', 1366],
          ['response.clientDataJSON', 4096],
          ['response.authenticatorData', 4096],
          ['response.signature', 1024],
          ['response.userHandle', 88],
        ]),
      ],
    },
    {
      method: 'POST',
      path: '/device/v3/link-requests/{device_id}',
      schema: 'answerLinkRequestBody',
      signer: 'device',
      body: () => ({ approve: false }),
      // No device waits for this one's confirmation: a well-formed answer is read, and finds nothing to answer.
      accepted: { status: 404, code: 'HTTP-404' },
      target: async () => `/device/v3/link-requests/${randomUUID()}`,
      fields: [],
    },
    {
      method: 'PUT',
      path: '/device/v3/passkey',
      schema: 'registerPasskeyBody',
      signer: 'device',
      // No options were asked for: a well-formed registration has no challenge to be checked against.
      body: () => ({ registration: registration() }),
      accepted: noChallenge,
      fields: webauthnFields('registration', registration, [
        ['id', 1366],
        ['rawId', 1366],
        ['response.clientDataJSON', 4096],
        ['response.attestationObject', 8192],
        ['response.authenticatorData', 8192],
        ['response.publicKey', 2048],
        ['response.transports[]', 32],
      ]).concat([
        {
          field: 'registration.response.transports',
          limit: 8,
          unit: 'items',
          largest: () => registration({ transports: times(8, () => 'internal') }),
          past: () => registration({ transports: times(9, () => 'internal') }),
          accepted: noChallenge,
          refusedAt: 'registration.response.transports',
        },
        {
          field: 'registration.response.publicKeyAlgorithm',
          limit: 65_535,
          unit: 'value',
          largest: () => registration({ publicKeyAlgorithm: 65_535 }),
          past: () => registration({ publicKeyAlgorithm: 65_536 }),
          accepted: noChallenge,
          refusedAt: 'registration.response.publicKeyAlgorithm',
        },
      ]),
    },
    {
      method: 'PUT',
      path: '/device/v3/push',
      schema: 'registerPushBody',
      signer: 'device',
      body: () => ({ webpush: pushSubscription() }),
      accepted: { status: 204 },
      fields: [
        {
          ...text('webpush.endpoint', 2048),
          largest: () => pushSubscription({ endpoint: pushEndpoint(2048) }),
          past: () => pushSubscription({ endpoint: pushEndpoint(2049) }),
          refusedAt: 'webpush.endpoint',
        },
        {
          // 16 bytes are 22 characters of base64url; the padding a browser may add makes 24.
          ...text('webpush.keys.auth', 24),
          largest: () => pushSubscription({ auth: `${Buffer.alloc(16, 9).toString('base64url')}==` }),
          past: () => pushSubscription({ auth: `${Buffer.alloc(16, 9).toString('base64url')}===` }),
          refusedAt: 'webpush.keys.auth',
        },
        {
          // 65 bytes are 87 characters of base64url; with its padding, 88.
          ...text('webpush.keys.p256dh', 88),
          largest: () => pushSubscription({ p256dh: `${pushPoint}=` }),
          past: () => pushSubscription({ p256dh: `${pushPoint}==` }),
          refusedAt: 'webpush.keys.p256dh',
        },
        {
          field: 'webpush.expirationTime',
          limit: 8_640_000_000_000_000,
          unit: 'milliseconds',
          largest: () => pushSubscription({ expirationTime: 8_640_000_000_000_000 }),
          past: () => pushSubscription({ expirationTime: 8_640_000_000_000_001 }),
          refusedAt: 'webpush.expirationTime',
        },
        {
          // Apple allows for tokens up to 100 bytes: 200 hex digits. A body holds one channel: this one alone.
          ...text('apns.token', 200),
          alone: true,
          largest: () => ({ token: 'cd'.repeat(100) }),
          past: () => ({ token: `${'cd'.repeat(100)}e` }),
          refusedAt: 'apns.token',
        },
        {
          ...text('fcm.token', 1024),
          alone: true,
          largest: () => ({ token: `f:APA91b-${'x'.repeat(1024 - 9)}` }),
          past: () => ({ token: `f:APA91b-${'x'.repeat(1025 - 9)}` }),
          refusedAt: 'fcm.token',
        },
      ],
    },
    {
      method: 'DELETE',
      path: '/device/v3/sessions',
      schema: 'endDeviceSessionBody',
      signer: 'device',
      // A session to end: the service starts one first.
      body: async () => {
        await send(asService(), '/service/v3/sessions', {
          json: JSON.stringify({ username: fx.identifier }),
        });
        return { service_id: fx.serviceId };
      },
      accepted: { status: 204 },
      fields: [uuidField('service_id', () => fx.serviceId)],
    },
  ];
}

/** Routes of the route table that take no body: they refuse one, so no field of theirs has a size. */
const bodylessRoutes = [
  'DELETE /service/v3/auths/{auth_request}',
  'DELETE /device/v3/link',
  'DELETE /device/v3/push',
  'POST /device/v3/passkey/options',
];

/** What a passkey field at its largest gets from the fixture's device, which has neither passkey nor challenge. */
const noChallenge: Outcome = { status: 403, code: 'HTTP-403' };

/** A browser's toJSON() of a WebAuthn credential: a registration's or an assertion's, with fields of `response` replaced. */
const registration = (response: Record<string, unknown> = {}) => ({
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA', ...response },
});
const assertion = (response: Record<string, unknown> = {}) => ({
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  clientExtensionResults: {},
  response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA', ...response },
});

/**
 * The base64url fields of a credential under `key` (`id` or `response.<name>`, `response.<name>[]` for a list's
 * items), and the 1 KB of its extension results; the largest of each gets `noChallenge`.
 */
function webauthnFields(
  key: 'webauthn' | 'registration',
  make: () => { readonly response: Record<string, unknown> },
  fields: readonly (readonly [string, number])[],
): FieldLimit[] {
  const at = (path: string, value: unknown) => {
    const name = path.replace(/^response\./, '').replace(/\[\]$/, '');
    const wrapped = path.endsWith('[]') ? [value] : value;
    const base = make();
    return path.startsWith('response.')
      ? { ...base, response: { ...base.response, [name]: wrapped } }
      : { ...base, [name]: wrapped };
  };
  const padded = (bytes: number) => ({ padding: 'p'.repeat(bytes - jsonBytes({ padding: '' })) });
  return [
    ...fields.map(([path, limit]) => ({
      ...text(`${key}.${path}`, limit),
      largest: () => at(path, path.endsWith('[]') ? 'a'.repeat(limit) : 'A'.repeat(limit)),
      past: () => at(path, path.endsWith('[]') ? 'a'.repeat(limit + 1) : 'A'.repeat(limit + 1)),
      accepted: noChallenge,
      refusedAt: `${key}.${path.replace(/\[\]$/, '.0')}`,
    })),
    {
      field: `${key}.clientExtensionResults`,
      limit: 1024,
      unit: 'bytes',
      largest: () => at('clientExtensionResults', padded(1024)),
      past: () => at('clientExtensionResults', padded(1025)),
      accepted: noChallenge,
      refusedAt: `${key}.clientExtensionResults`,
    },
  ];
}

/**
 * A browser's PushSubscription.toJSON(), at a public address literal (the address guard needs no name lookup): a
 * P-256 point of 65 bytes and a 16-byte secret, base64url.
 */
const pushPoint = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
function pushSubscription(
  overrides: { endpoint?: string; auth?: string; p256dh?: string; expirationTime?: number } = {},
) {
  return {
    endpoint: overrides.endpoint ?? 'https://93.184.216.34/push/limits',
    expirationTime: overrides.expirationTime ?? null,
    keys: {
      p256dh: overrides.p256dh ?? pushPoint,
      auth: overrides.auth ?? Buffer.alloc(16, 9).toString('base64url'),
    },
  };
}
const pushEndpoint = (length: number) =>
  `https://93.184.216.34/${wide(length - 'https://93.184.216.34/'.length)}`;

const jwe = (length: number) => `h.k.i.${'c'.repeat(length - 8)}.t`;
const base64 = (length: number) => 'A'.repeat(length);

// ---------------------------------------------------------------------------------------------------------------
// Requests

async function setUpFixture(): Promise<Fixture> {
  const client = target.runtime.client();
  const tenant = await setUpTenant(client, target.runtime.baseUrl, { name: `Limits ${randomUUID()}` });
  const organization = target.runtime.issuer;
  // Push credentials, so that the fixture's device may register an APNs or an FCM token.
  await client.call('PATCH', '/organization/v3/directories', {
    body: {
      directory_id: tenant.directoryId,
      denial_context_inquiry_enabled: true,
      android_key: serviceAccount.json,
      ios_p12: pushP12,
    },
  });
  // Every row asks the one fixture user, far more often than the per-user limit lets anyone ask a person.
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  await updateDirectorySettings(tenant.directoryId, { rateLimit: '10000/60' });
  const identifier = wide(256);
  const authenticator = await tenant.linkUser(identifier);
  const devicePrivateKey = createPrivateKey(authenticator.state.privateKeyPem);
  const device: Signer = {
    issuer: `dev:${authenticator.state.deviceId}`,
    kid: keyId(devicePrivateKey),
    privateKey: devicePrivateKey,
  };
  target.decryptionKeys.set(device.kid, devicePrivateKey);

  const created = async (path: string, body: Record<string, unknown>, subject?: string) =>
    (await client.call<{ id: string }>('POST', path, { body, ...(subject ? { subject } : {}) })).body
      ?.id as string;
  const addKey = async (path: string, body: Record<string, unknown>, subject?: string) =>
    (
      await client.call<{ key_id: string }>('POST', path, {
        body: { ...body, public_key: rsaKeyPair().publicPem },
        ...(subject ? { subject } : {}),
      })
    ).body?.key_id as string;
  const spareDirectoryId = await created('/organization/v3/directories', { name: `Limits ${randomUUID()}` });
  const organizationServiceId = await created('/organization/v3/services', {
    name: `Limits ${randomUUID()}`,
  });
  const dir = `dir:${tenant.directoryId}`;
  const directoryServiceId = await created('/directory/v3/services', { name: `Limits ${randomUUID()}` }, dir);
  await client.call('POST', '/directory/v3/totp', { subject: dir, body: { identifier } });
  const more = async (path: string, subject: string) => {
    const ids: string[] = [];
    while (ids.length < 99) {
      const batch = times(Math.min(10, 99 - ids.length), async () => {
        const answer = await send({ method: 'POST', signer: 'organization', subject }, path, {
          json: JSON.stringify({ name: `Limits ${randomUUID()}` }),
        });
        return (answer.json as { id: string }).id;
      });
      ids.push(...(await Promise.all(batch)));
    }
    return ids;
  };
  const owned = {
    directories: [spareDirectoryId, ...(await more('/organization/v3/directories', organization))],
    organizationServices: [organizationServiceId, ...(await more('/organization/v3/services', organization))],
    directoryServices: [directoryServiceId, ...(await more('/directory/v3/services', dir))],
  };
  return {
    owned,
    organization,
    directoryId: tenant.directoryId,
    sdkKey: tenant.sdkKey,
    serviceId: tenant.serviceId,
    identifier,
    device,
    spareDirectoryId,
    organizationServiceId,
    directoryServiceId,
    kids: {
      directory: await addKey('/organization/v3/directory/keys', { directory_id: spareDirectoryId }),
      organizationService: await addKey('/organization/v3/service/keys', {
        service_id: organizationServiceId,
      }),
      directoryService: await addKey('/directory/v3/service/keys', { service_id: directoryServiceId }, dir),
    },
  };
}

/** Signs (or, for the device's link, leaves plain) a request with this JSON text or these raw bytes. */
async function request(
  route: Pick<RouteLimits, 'method' | 'signer' | 'subject'>,
  path: string,
  body: { readonly json: string } | { readonly raw: string | Buffer },
): Promise<RawRequest> {
  if (route.signer === 'none') {
    return {
      method: route.method,
      target: path,
      headers: { 'content-type': 'application/json' },
      body: 'json' in body ? body.json : body.raw,
    };
  }
  const signer = route.signer === 'device' ? fixture.device : target.organization;
  const subject = route.signer === 'device' ? fixture.device.issuer : route.subject;
  return target.sign({
    method: route.method,
    target: path,
    signer,
    ...(subject ? { subject } : {}),
    ...('json' in body ? { json: body.json } : { rawBody: body.raw }),
  });
}

async function send(
  route: Pick<RouteLimits, 'method' | 'signer' | 'subject'>,
  path: string,
  body: { readonly json: string } | { readonly raw: string | Buffer },
): Promise<CheckedAnswer> {
  const raw = await request(route, path, body);
  return target.check(raw, await target.invoke(raw));
}

const asService = () => ({
  method: 'POST',
  signer: 'organization' as const,
  subject: `svc:${fixture.serviceId}`,
});

/** A new pending request for the fixture's user; its id. */
async function ask(): Promise<string> {
  const answer = await send(asService(), '/service/v3/auths', {
    json: JSON.stringify({ username: fixture.identifier }),
  });
  expect(answer.status).toBe(201);
  return (answer.json as { auth_request: string }).auth_request;
}

async function cancel(authRequest: string): Promise<void> {
  const answer = await send({ ...asService(), method: 'DELETE' }, `/service/v3/auths/${authRequest}`, {
    raw: '',
  });
  expect(answer.status).toBe(204);
}

async function linkingCode(identifier: string): Promise<string> {
  const answer = await send(
    { method: 'POST', signer: 'organization', subject: `dir:${fixture.directoryId}` },
    '/directory/v3/devices',
    { json: JSON.stringify({ identifier }) },
  );
  return (answer.json as { code: string }).code;
}

const outcome = (answer: CheckedAnswer): Outcome => ({
  status: answer.status,
  ...(answer.code === undefined ? {} : { code: answer.code }),
});

const topKey = (field: string) => field.split(/[.[]/)[0] as string;
const routeName = (route: Pick<RouteLimits, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** Sends the route's body with one field replaced; an accepted request is undone afterwards. */
async function sendWith(
  route: RouteLimits,
  field: string,
  value: unknown,
  alone = false,
): Promise<CheckedAnswer> {
  const body = { ...(alone ? {} : await route.body()), [topKey(field)]: value };
  return sendBody(route, { json: JSON.stringify(body) });
}

async function sendBody(
  route: RouteLimits,
  body: { readonly json: string } | { readonly raw: string | Buffer },
): Promise<CheckedAnswer> {
  const path = route.target ? await route.target() : route.path;
  const answer = await send(route, path, body);
  if (answer.status < 300) await route.after?.(answer);
  // A request that was never answered holds the user's slot: free it for the next row.
  if (route.target && path.startsWith('/device/v3/auths/') && answer.status >= 300)
    await cancel(path.split('/').pop() as string);
  return answer;
}

// ---------------------------------------------------------------------------------------------------------------
// The body: the largest request the gateway passes on is a valid body padded with white space

/**
 * The request body of the JSON text padded with spaces to the largest size within `maxRequestBodyBytes`, or to the
 * smallest past it: the text itself for the device's link, else its JWE, which grows by 16-byte blocks.
 */
async function paddedBody(route: RouteLimits, json: string, over: boolean): Promise<string> {
  const jsonBytes = Buffer.byteLength(json);
  if (route.signer === 'none')
    return `${json}${' '.repeat(maxRequestBodyBytes + (over ? 1 : 0) - jsonBytes)}`;
  // A256CBC adds one to sixteen bytes of padding, and base64url a third.
  const cipherLength = (bytes: number) => Math.ceil(((Math.floor(bytes / 16) + 1) * 16 * 4) / 3);
  const overhead = (await target.encrypt(json)).length - cipherLength(jsonBytes);
  let bytes = Math.floor(((maxRequestBodyBytes - overhead) * 3) / 4);
  while (overhead + cipherLength(bytes) > maxRequestBodyBytes) bytes -= 1;
  if (over) bytes = (Math.floor(bytes / 16) + 1) * 16;
  return target.encrypt(`${json}${' '.repeat(bytes - jsonBytes)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Tests

describe('the table', () => {
  const bodySchemas = (): Map<string, v.GenericSchema> => {
    const schemas = new Map<string, v.GenericSchema>();
    for (const module of [
      auditSchemas,
      authRequestSchemas,
      deviceSchemas,
      directorySchemas,
      serviceSchemas,
      userSchemas,
    ]) {
      for (const [name, value] of Object.entries(module)) {
        const type = (value as { type?: unknown }).type;
        if (type === 'strict_object' || type === 'object') schemas.set(name, value as v.GenericSchema);
      }
    }
    for (const idField of ['directory_id', 'service_id'] as const) {
      for (const [operation, schema] of Object.entries(keyBodies(idField))) {
        schemas.set(`keyBodies('${idField}').${operation}`, schema as v.GenericSchema);
      }
    }
    return schemas;
  };
  /** Fields a size means nothing for: JSON booleans, and numbers from a fixed list. */
  const sizeless = (field: SchemaField) => field.type === 'boolean' || field.type === 'picklist';

  it('names every route that takes a body, and only those', () => {
    const withBody = httpRoutes
      .filter((route) => route.method !== 'GET')
      .map(routeName)
      .filter((name) => !bodylessRoutes.includes(name));
    expect(table.map(routeName).sort()).toEqual(withBody.sort());
  });

  it('uses every body schema of shared/http/schemas', () => {
    const used = new Set(table.map((route) => route.schema));
    expect([...bodySchemas().keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('names every field of each route’s schema that has a size, with the limit the schema declares', () => {
    const schemas = bodySchemas();
    const problems: string[] = [];
    for (const route of table) {
      const schema = schemas.get(route.schema);
      if (!schema) {
        problems.push(`${routeName(route)}: no schema ${route.schema}`);
        continue;
      }
      const fields = schemaFields(schema).filter((field) => !sizeless(field));
      for (const field of fields) {
        const rows = route.fields.filter((row) => row.field === field.path);
        if (rows.length === 0) problems.push(`${routeName(route)}: ${field.path} is not in the table`);
        if (field.type === 'unknown') continue;
        if (field.max === undefined && !field.checks.some((check) => check === 'uuid' || check === 'regex')) {
          problems.push(`${routeName(route)}: ${field.path} has no limit in its schema`);
        }
        for (const row of rows.filter((limit) => limit.bound === undefined)) {
          if (field.max !== undefined && row.limit !== field.max) {
            problems.push(
              `${routeName(route)}: ${field.path} is limited to ${field.max}, the table says ${row.limit}`,
            );
          }
        }
      }
      for (const row of route.fields) {
        if (!fields.some((field) => field.path === row.field)) {
          problems.push(`${routeName(route)}: ${row.field} is not a field of ${route.schema}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('names every bound of a policy (or says why one does not apply) and of a public key', () => {
    const bounds: Readonly<Record<string, readonly string[]>> = {
      policy: Object.keys(policyLimits),
      public_key: ['modulusBits'],
    };
    const missing = table.flatMap((route) =>
      Object.entries(bounds).flatMap(([field, names]) =>
        route.fields.some((row) => row.field === field)
          ? names
              .filter((bound) => !route.fields.some((row) => row.field === field && row.bound === bound))
              .filter(
                (bound) =>
                  !(
                    route.path === '/service/v3/auths' &&
                    requestPolicyExemptions[bound as keyof typeof policyLimits]
                  ),
              )
              .map((bound) => `${routeName(route)}: ${field} ${bound}`)
          : [],
      ),
    );
    expect(missing).toEqual([]);
  });
});

/** Routes of the route table that take a body, by name. */
const bodyRoutes = httpRoutes
  .filter((route) => route.method !== 'GET')
  .map(routeName)
  .filter((name) => !bodylessRoutes.includes(name));
const routeNamed = (name: string) => table.find((row) => routeName(row) === name) as RouteLimits;

describe('each route', () => {
  it.each(bodyRoutes)('%s: accepts its base body', async (name) => {
    const route = routeNamed(name);
    const answer = await sendBody(route, { json: JSON.stringify(await route.body()) });
    expect(outcome(answer)).toEqual(route.accepted);
  });

  it.each(bodylessRoutes)('%s: takes no body, so has no field to bound', async (name) => {
    const [method, path] = name.split(' ') as [string, string];
    const route = {
      method,
      signer: path.startsWith('/device') ? ('device' as const) : ('organization' as const),
      subject: `svc:${fixture.serviceId}`,
    };
    const answer = await send(route, path.replace('{auth_request}', randomUUID()), { json: '{}' });
    expect({ ...outcome(answer), detail: answer.detail }).toEqual({
      ...argument,
      detail: 'This operation takes no request body',
    });
  });
});

describe('every field at its limit and one past it', () => {
  const cases = () =>
    table.flatMap((route) =>
      route.fields.map((row) => ({
        name: `${routeName(route)} ${row.field}${row.bound ? ` (${row.bound})` : ''}: ${row.limit} ${row.unit}`,
        route,
        row,
      })),
    );

  it('gets the route’s answer at the limit and the documented refusal past it, on every route', async () => {
    const seen: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (const { name, route, row } of cases()) {
      const [largest, past] = [
        await sendWith(route, row.field, row.largest(), row.alone).catch((error: unknown) => error),
        await sendWith(route, row.field, row.past(), row.alone).catch((error: unknown) => error),
      ];
      const shown = (answer: unknown) =>
        answer instanceof Error ? answer.message.split('\n')[0] : outcome(answer as CheckedAnswer);
      const detail = (answer: unknown) =>
        answer instanceof Error ? '' : String((answer as CheckedAnswer).detail);
      seen[name] = {
        largest: shown(largest),
        past: shown(past),
        refusedAt: detail(past).startsWith(row.refusedAt) ? row.refusedAt : detail(past),
      };
      expected[name] = {
        largest: row.accepted ?? route.accepted,
        past: row.refusal ?? argument,
        refusedAt: row.refusedAt,
      };
    }
    expect(seen).toEqual(expected);
  }, 300_000);
});

describe('the request body at the gateway’s 6 MB and just past it', () => {
  it.each(bodyRoutes)(
    '%s: a valid body padded with white space to the limit is read; past it, 413',
    async (name) => {
      const route = routeNamed(name);
      const [largest, past] = [
        await paddedBody(route, JSON.stringify(await route.body()), false),
        await paddedBody(route, JSON.stringify(await route.body()), true),
      ];
      expect({
        largest: outcome(await sendBody(route, { raw: largest })),
        past: outcome(await sendBody(route, { raw: past })),
        // Within one cipher block of the limit, and past it by at most one.
        sizes: [maxRequestBodyBytes - largest.length, past.length - maxRequestBodyBytes],
      }).toEqual({
        largest: route.accepted,
        past: { status: 413, code: 'HTTP-413' },
        sizes: [
          expect.toSatisfy((gap: number) => gap >= 0 && gap < 22),
          expect.toSatisfy((over: number) => over > 0 && over <= 22),
        ],
      });
    },
    60_000,
  );
});

describe('everything at its largest at once', () => {
  it('stores the request, lists it on the device, takes the largest answer and shows it to the service', async () => {
    const { getAuthRequest } = await import('#shared/store/auth-requests');
    const dir = { method: 'PATCH', signer: 'organization' as const, subject: `dir:${fixture.directoryId}` };
    const servicePolicy = largestServicePolicy();
    const requestPolicy = largestRequestPolicy();
    const setUp = [
      await send(dir, '/directory/v3/services', {
        json: JSON.stringify({
          service_id: fixture.serviceId,
          name: expandingName(200),
          icon: wideUrl(2048),
        }),
      }),
      await send({ ...dir, method: 'PUT' }, '/directory/v3/service/policy', {
        json: JSON.stringify({ service_id: fixture.serviceId, policy: servicePolicy }),
      }),
    ].map(outcome);
    const created = await send(asService(), '/service/v3/auths', {
      json: JSON.stringify({
        username: fixture.identifier,
        context: wide(400),
        title: wide(200),
        ttl: 600,
        push_title: wide(200),
        push_body: wide(1000),
        denial_reasons: denialReasonList(25),
        policy: requestPolicy,
      }),
    });
    const id = (created.json as { auth_request: string }).auth_request;
    const pendingItem = await getAuthRequest(id);
    const device = { method: 'GET', signer: 'device' as const };
    const listed = await send(device, '/device/v3/auths', { raw: '' });
    const [view] = listed.json as { policy: { fence_groups: unknown[][]; time_fence_groups: unknown[][] } }[];
    const answered = await send({ ...device, method: 'POST' }, `/device/v3/auths/${id}`, {
      json: JSON.stringify({ auth_jwe: jwe(65_536), auth: base64(4096), auth_v1: base64(4096) }),
    });
    const read = await send({ ...asService(), method: 'GET' }, `/service/v3/auths/${id}`, { raw: '' });
    const answeredItem = await getAuthRequest(id);
    const sizes = {
      servicePolicy: jsonBytes(servicePolicy),
      requestPolicy: jsonBytes(requestPolicy),
      pendingItem: jsonBytes(pendingItem),
      deviceList: listed.body.length,
      answeredItem: jsonBytes(answeredItem),
      effectivePolicy: jsonBytes(view?.policy),
    };
    expect({
      setUp,
      created: outcome(created),
      listed: outcome(listed),
      groups: {
        fences: view?.policy.fence_groups.map((group) => group.length),
        timeFences: view?.policy.time_fence_groups.map((group) => group.length),
      },
      answered: outcome(answered),
      read: outcome(read),
      policiesWithinLimit:
        sizes.servicePolicy <= policyLimits.policyBytes && sizes.requestPolicy <= policyLimits.policyBytes,
      // DynamoDB holds 400 KB; JSON is a fair measure of an item's size.
      itemsWellWithinTheStore: sizes.answeredItem < 200_000,
      deviceListUnder: sizes.deviceList < 150_000,
    }).toEqual({
      setUp: [{ status: 204 }, { status: 204 }],
      created: { status: 201 },
      listed: { status: 200 },
      groups: { fences: [policyLimits.fences, policyLimits.fences], timeFences: [policyLimits.timeFences] },
      answered: { status: 204 },
      read: { status: 200 },
      policiesWithinLimit: true,
      itemsWellWithinTheStore: true,
      deviceListUnder: true,
    });
    await send({ ...dir, method: 'DELETE' }, '/directory/v3/service/policy', {
      json: JSON.stringify({ service_id: fixture.serviceId }),
    });
  }, 60_000);
});

describe('far past the limits, as the review sent them', () => {
  const geoCircles = (count: number, name: string | null = null) =>
    times(count, () => ({
      type: 'GEO_CIRCLE',
      ...(name === null ? {} : { name }),
      latitude: 1,
      longitude: 1,
      radius: 10,
    }));
  const service = (policy: unknown) => ({ service_id: fixture.directoryServiceId, policy });
  const ofPolicy = (detail: unknown) => String(detail).split(':')[0];

  it.each([
    ['10 000 fences', { type: 'METHOD_AMOUNT', amount: 1, fences: geoCircles(10_000) }, 'policy'],
    ['5 000 fences', { type: 'METHOD_AMOUNT', amount: 1, fences: geoCircles(5000) }, 'policy'],
    [
      'a fence named with 450 KB',
      { type: 'METHOD_AMOUNT', amount: 1, fences: geoCircles(1, 'n'.repeat(450_000)) },
      'policy',
    ],
    [
      'a radius of 1e300 metres',
      {
        type: 'METHOD_AMOUNT',
        amount: 1,
        fences: [{ type: 'GEO_CIRCLE', latitude: 1, longitude: 1, radius: 1e300 }],
      },
      'policy.fences[0].radius',
    ],
  ])('a service policy with %s is SVC-002 naming the field', async (_, policy, field) => {
    const put = { method: 'PUT', signer: 'organization' as const, subject: `dir:${fixture.directoryId}` };
    const answer = await send(put, '/directory/v3/service/policy', { json: JSON.stringify(service(policy)) });
    expect({ ...outcome(answer), field: ofPolicy(answer.detail) }).toEqual({ ...badPolicy, field });
  });

  it('a service policy with a latitude of 1e-300, which the store cannot hold, is stored with 0', async () => {
    const dir = { signer: 'organization' as const, subject: `dir:${fixture.directoryId}` };
    const fence = { type: 'GEO_CIRCLE', latitude: 1e-300, longitude: 1, radius: 1 };
    const put = await send({ ...dir, method: 'PUT' }, '/directory/v3/service/policy', {
      json: JSON.stringify(service({ type: 'METHOD_AMOUNT', amount: 1, fences: [fence] })),
    });
    const read = await send({ ...dir, method: 'POST' }, '/directory/v3/service/policy/item', {
      json: JSON.stringify({ service_id: fixture.directoryServiceId }),
    });
    expect({ put: outcome(put), fences: (read.json as { fences: unknown }).fences }).toEqual({
      put: { status: 204 },
      fences: [{ ...fence, latitude: 0 }],
    });
  });

  it.each([
    ['10 000 locations', legacyPolicy(times(10_000, () => circle(null))), 'policy'],
    ['a location named with 450 KB', legacyPolicy([circle('n'.repeat(450_000))]), 'policy'],
    [
      'a radius of 1e300 metres',
      legacyPolicy([{ ...circle(), radius: 1e300 }]),
      'policy.factors[0].attributes.locations[0].radius',
    ],
  ])('a request policy with %s is SVC-002 naming the field', async (_, policy, field) => {
    const answer = await send(asService(), '/service/v3/auths', {
      json: JSON.stringify({ username: fixture.identifier, policy }),
    });
    expect({ ...outcome(answer), field: ofPolicy(answer.detail) }).toEqual({ ...badPolicy, field });
  });
});

describe('a public key as large as accepted', () => {
  it('can be answered to; one size larger is refused when it is registered', async () => {
    const org = { method: 'POST', signer: 'organization' as const, subject: fixture.organization };
    const directory = async () => {
      const created = await send(org, '/organization/v3/directories', {
        json: JSON.stringify({ name: `Limits ${randomUUID()}` }),
      });
      return (created.json as { id: string }).id;
    };
    const addKey = (directoryId: string, publicPem: string, keyType: number) =>
      send(org, '/organization/v3/directory/keys', {
        json: JSON.stringify({ directory_id: directoryId, public_key: publicPem, key_type: keyType }),
      });
    /** Registers a signing key and an encryption-only key of `bits`, then signs a request as the directory. */
    const answerTo = async (bits: number) => {
      const directoryId = await directory();
      const signing = rsaKeyPair();
      await addKey(directoryId, signing.publicPem, 2);
      const registered = await addKey(directoryId, rsaPublicKeyOfBits(bits), 1);
      const signed = await target.sign({
        method: 'POST',
        target: '/directory/v3/services/list',
        signer: { issuer: `dir:${directoryId}`, kid: signing.kid, privateKey: signing.privateKey },
        json: JSON.stringify({ service_ids: [] }),
      });
      // The answer is encrypted to the large key, whose private half nobody holds: only its status is read.
      return { registered: outcome(registered), answered: (await target.invoke(signed)).status };
    };
    // One size larger used to be registered, and then every answer to the directory was a 500.
    expect({ largest: await answerTo(16_384), past: await answerTo(16_392) }).toEqual({
      largest: { registered: { status: 201 }, answered: 200 },
      past: { registered: argument, answered: 401 },
    });
  });
});

/**
 * The console's endpoints live behind one proxy route (docs/console.md), not in the route table's rows: its own table
 * lists those that take a body, each bounded by its schema and by the console's body limit, well under the gateway's.
 */
describe('the console’s bodies', () => {
  it('names every console endpoint that takes a body, each field bounded, the body under 32 KB', async () => {
    const [{ consoleEndpoints }, { maxConsoleBodyBytes }] = await Promise.all([
      import('#functions/console/api'),
      import('#shared/http/schemas/console'),
    ]);
    const withBody = consoleEndpoints.filter((endpoint) => endpoint.schema !== undefined);
    expect(withBody.map((endpoint) => `${endpoint.method} ${endpoint.path}`).sort()).toEqual([
      'PATCH /admins/{id}',
      'PATCH /directories/{id}',
      'PATCH /directories/{id}/keys/{kid}',
      'PATCH /directories/{id}/settings',
      'PATCH /organizations/{id}/keys/{kid}',
      'PATCH /services/{id}',
      'PATCH /services/{id}/keys/{kid}',
      'POST /admins/invites',
      'POST /confirmation',
      'POST /dead-letters/{queue}/redrive',
      'POST /directories',
      'POST /directories/{id}/keys',
      'POST /directories/{id}/services',
      'POST /directories/{id}/users/{identifier}/links',
      'POST /enrolment',
      'POST /enrolment/options',
      'POST /organizations/{id}/keys',
      'POST /organizations/{id}/services',
      'POST /services/{id}/keys',
      'POST /sign-in',
      'PUT /directories/{id}/push/apns-certificate',
      'PUT /directories/{id}/push/apns-token-key',
      'PUT /directories/{id}/push/fcm',
      'PUT /services/{id}/policy',
    ]);
    const unbounded = withBody.flatMap((endpoint) =>
      schemaFields(endpoint.schema as v.GenericSchema)
        .filter((field) => field.type !== 'boolean' && field.type !== 'picklist' && field.type !== 'unknown')
        .filter(
          (field) =>
            field.max === undefined && !field.checks.some((check) => check === 'uuid' || check === 'regex'),
        )
        .map((field) => `${endpoint.path}: ${field.path}`),
    );
    expect(unbounded).toEqual([]);
    expect(maxConsoleBodyBytes).toBe(32 * 1024);
  });
});
