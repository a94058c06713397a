import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import {
  createDirectory,
  newOrganization,
  type Organization,
  refusal,
  refusedWith,
  uniqueName,
} from '#test/support/tree';

let service: TestRuntime;
let organization: Organization;
let policy: typeof import('#shared/domain/policy/service-policy');

beforeAll(async () => {
  service = await startTestRuntime();
  organization = await newOrganization(service);
  policy = await import('#shared/domain/policy/service-policy');
});
afterAll(async () => {
  await service?.stop();
});

/** Policies as the SDKs send them (docs/protocol.md#policies). */
const encodings: Record<string, Record<string, unknown>> = {
  'PY ServiceSecurityPolicy (untyped legacy, with quickfail and device integrity off)': {
    minimum_requirements: [
      { requirement: 'authenticated', any: 0, knowledge: 1, inherence: 1, possession: 0 },
    ],
    factors: [
      {
        factor: 'geofence',
        requirement: 'forced requirement',
        quickfail: false,
        priority: 1,
        attributes: { locations: [{ radius: 150.5, latitude: 36.12, longitude: -115.17, name: 'Strip' }] },
      },
      {
        factor: 'device integrity',
        requirement: 'forced requirement',
        quickfail: false,
        priority: 1,
        attributes: { 'factor enabled': 0 },
      },
    ],
  },
  'JV typed LEGACY': {
    type: 'LEGACY',
    minimum_requirements: [
      { requirement: 'authenticated', any: 2, knowledge: null, inherence: null, possession: null },
    ],
    factors: [
      {
        factor: 'device integrity',
        requirement: 'forced requirement',
        priority: 1,
        attributes: { 'factor enabled': 1 },
      },
    ],
  },
  METHOD_AMOUNT: {
    type: 'METHOD_AMOUNT',
    amount: 2,
    fences: [],
    deny_rooted_jailbroken: true,
    deny_emulator_simulator: false,
  },
  'FACTORS out of order': {
    type: 'FACTORS',
    factors: ['POSSESSION', 'INHERENCE'],
    fences: [
      { type: 'TERRITORY', name: 'Nevada', country: 'US', administrative_area: 'US-NV', postal_code: null },
    ],
    deny_rooted_jailbroken: false,
    deny_emulator_simulator: false,
  },
  COND_GEO: {
    type: 'COND_GEO',
    fences: [{ type: 'GEO_CIRCLE', name: 'Office', latitude: 40.7, longitude: -74, radius: 200 }],
    inside: { type: 'METHOD_AMOUNT', amount: 1 },
    outside: { type: 'FACTORS', factors: ['KNOWLEDGE', 'INHERENCE'] },
    deny_rooted_jailbroken: false,
    deny_emulator_simulator: true,
  },
};

const blank = { type: 'LEGACY', minimum_requirements: [], factors: [] };

describe.each([
  ['an Organization Service', '/organization/v3'],
  ['a Directory Service', '/directory/v3'],
])('the policy of %s', (_, prefix) => {
  let serviceId: string;
  let subject: string | undefined;

  beforeAll(async () => {
    if (prefix === '/directory/v3') subject = `dir:${await createDirectory(organization)}`;
    const { body } = await organization.client.call<{ id: string }>('POST', `${prefix}/services`, {
      body: { name: uniqueName('Policy') },
      ...(subject ? { subject } : {}),
    });
    serviceId = (body as { id: string }).id;
  });

  const call = (method: string, path: string, body: Record<string, unknown>) =>
    organization.client.call(method, `${prefix}${path}`, { body, ...(subject ? { subject } : {}) });
  const read = async () => (await call('POST', '/service/policy/item', { service_id: serviceId })).body;

  it('is the blank LEGACY policy until one is set', async () => {
    expect(await read()).toEqual(blank);
  });

  it.each(Object.keys(encodings))('accepts %s and reads back its one normalised form', async (encoding) => {
    const sent = encodings[encoding] as Record<string, unknown>;
    expect((await call('PUT', '/service/policy', { service_id: serviceId, policy: sent })).status).toBe(204);
    const stored = (await read()) as Record<string, unknown>;
    expect(stored).toEqual(policy.printServicePolicy(policy.parseServicePolicy(sent)));
    expect(stored.type).toBeTypeOf('string');
  });

  it('is the blank LEGACY policy again after removal', async () => {
    await call('PUT', '/service/policy', {
      service_id: serviceId,
      policy: encodings.METHOD_AMOUNT,
    });
    expect((await call('DELETE', '/service/policy', { service_id: serviceId })).status).toBe(204);
    expect(await read()).toEqual(blank);
  });

  it.each([
    ['an unknown factor', { type: 'FACTORS', factors: ['TELEPATHY'] }],
    ['an amount out of range', { type: 'METHOD_AMOUNT', amount: 9 }],
    [
      'a fence without radius',
      { type: 'METHOD_AMOUNT', amount: 1, fences: [{ type: 'GEO_CIRCLE', latitude: 1, longitude: 2 }] },
    ],
    ['an unknown type', { type: 'SOMETHING' }],
  ])('refuses %s with SVC-002 and the reason', async (_, sent) => {
    const error = await refusal(call('PUT', '/service/policy', { service_id: serviceId, policy: sent }));
    expect({ status: error.status, code: error.errorCode }).toEqual({ status: 400, code: 'SVC-002' });
    expect(String(error.errorDetail)).toMatch(/policy/);
  });

  it('of a service that is not the caller’s, or does not exist, is SVC-004 on get, set and remove', async () => {
    const other = await newOrganization(service);
    const { body } = await other.client.call<{ id: string }>('POST', '/organization/v3/services', {
      body: { name: uniqueName('Foreign policy') },
    });
    for (const id of [(body as { id: string }).id, randomUUID()]) {
      expect(await refusedWith(call('POST', '/service/policy/item', { service_id: id }))).toEqual({
        status: 400,
        code: 'SVC-004',
      });
      expect(await refusedWith(call('PUT', '/service/policy', { service_id: id, policy: blank }))).toEqual({
        status: 400,
        code: 'SVC-004',
      });
      expect(await refusedWith(call('DELETE', '/service/policy', { service_id: id }))).toEqual({
        status: 400,
        code: 'SVC-004',
      });
    }
  });
});
