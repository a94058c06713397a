import { describe, expect, it } from 'vitest';
import { evaluate } from '#shared/authenticator/evaluate';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import { effectivePolicy } from '#shared/domain/policy/effective-policy';
import { parseEffectivePolicy, printEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { parseServicePolicy } from '#shared/domain/policy/service-policy';
import { javaAuthPolicy, pythonAuthPolicy } from '#test/unit/shared/domain/policy/sdk-readers';

/*
 * Every kind of service policy, with every kind of fence it can carry, under every kind of request policy: the policy
 * travels to the device in its wire form, the reference authenticator reports it in its answer, and each SDK must
 * read back the kind of requirement the service asked for, its amount or types, and every fence.
 */

const circle = { type: 'GEO_CIRCLE', name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 };
const territory = {
  type: 'TERRITORY',
  name: 'Nevada',
  country: 'US',
  administrative_area: 'US-NV',
  postal_code: null,
};
const forced = { requirement: 'forced requirement', priority: 1 };
const legacyGeofence = {
  factor: 'geofence',
  ...forced,
  attributes: { locations: [{ name: 'Home', latitude: 40.7, longitude: -74, radius: 300 }] },
};
const requestGeofence = {
  factor: 'geofence',
  ...forced,
  attributes: { locations: [{ name: 'Hotel', latitude: 51.5, longitude: -0.12, radius: 800 }] },
};
const requirement = (fields: Record<string, number>) => [
  { requirement: 'authenticated', any: 0, knowledge: 0, inherence: 0, possession: 0, ...fields },
];

type Types = readonly ('inherence' | 'knowledge' | 'possession')[];

interface ServiceCase {
  readonly name: string;
  readonly body: (fences: readonly object[]) => unknown;
  /** What the service asked for: an amount (even 0), types, nothing, or a conditional. */
  readonly kind: 'amount' | 'types' | 'none' | 'cond_geo';
  readonly amount: number;
  readonly types: Types;
  /** The fence variants this kind can carry. */
  readonly fenceVariants: readonly (readonly object[])[];
}

const advancedFences = [[], [circle], [territory], [circle, territory]];
const legacyFences = [[], [legacyGeofence]];

const services: readonly ServiceCase[] = [
  {
    name: 'the blank LEGACY policy',
    body: (factors) => ({ type: 'LEGACY', minimum_requirements: [], factors }),
    kind: 'none',
    amount: 0,
    types: [],
    fenceVariants: legacyFences,
  },
  {
    name: 'LEGACY any 2',
    body: (factors) => ({ minimum_requirements: requirement({ any: 2 }), factors }),
    kind: 'amount',
    amount: 2,
    types: [],
    fenceVariants: legacyFences,
  },
  {
    name: 'LEGACY knowledge and possession',
    body: (factors) => ({ minimum_requirements: requirement({ knowledge: 1, possession: 1 }), factors }),
    kind: 'types',
    amount: 0,
    types: ['knowledge', 'possession'],
    fenceVariants: legacyFences,
  },
  {
    name: 'METHOD_AMOUNT 0',
    body: (fences) => ({ type: 'METHOD_AMOUNT', amount: 0, fences }),
    kind: 'amount',
    amount: 0,
    types: [],
    fenceVariants: advancedFences,
  },
  {
    name: 'METHOD_AMOUNT 2',
    body: (fences) => ({ type: 'METHOD_AMOUNT', amount: 2, fences }),
    kind: 'amount',
    amount: 2,
    types: [],
    fenceVariants: advancedFences,
  },
  {
    name: 'FACTORS inherence',
    body: (fences) => ({ type: 'FACTORS', factors: ['INHERENCE'], fences }),
    kind: 'types',
    amount: 0,
    types: ['inherence'],
    fenceVariants: advancedFences,
  },
  {
    name: 'COND_GEO',
    body: (fences) => ({
      type: 'COND_GEO',
      fences,
      inside: { type: 'METHOD_AMOUNT', amount: 0 },
      outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
    }),
    kind: 'cond_geo',
    amount: 0,
    types: [],
    fenceVariants: advancedFences.filter((fences) => fences.length > 0),
  },
];

interface RequestCase {
  readonly name: string;
  readonly body: unknown;
  readonly amount: number;
  readonly types: Types;
  readonly fences: number;
}

const requests: readonly RequestCase[] = [
  { name: 'no request policy', body: undefined, amount: 0, types: [], fences: 0 },
  {
    name: 'an empty request policy',
    body: { minimum_requirements: [], factors: [] },
    amount: 0,
    types: [],
    fences: 0,
  },
  {
    name: 'a request for any 1',
    body: { minimum_requirements: requirement({ any: 1 }), factors: [] },
    amount: 1,
    types: [],
    fences: 0,
  },
  {
    name: 'a request for any 3',
    body: { minimum_requirements: requirement({ any: 3 }), factors: [] },
    amount: 3,
    types: [],
    fences: 0,
  },
  {
    name: 'a request for inherence',
    body: { minimum_requirements: requirement({ inherence: 1 }), factors: [] },
    amount: 0,
    types: ['inherence'],
    fences: 0,
  },
  {
    name: 'a request geofence',
    body: { minimum_requirements: [], factors: [requestGeofence] },
    amount: 0,
    types: [],
    fences: 1,
  },
];

const factorOrder = ['inherence', 'knowledge', 'possession'] as const;

/** What the SDKs must read, from what the service and the request asked for (the stricter of each winning). */
function expected(service: ServiceCase, fences: readonly object[], request: RequestCase) {
  const types = factorOrder.filter((type) => service.types.includes(type) || request.types.includes(type));
  const amount = Math.max(service.amount, request.amount);
  const kind =
    service.kind === 'cond_geo'
      ? 'COND_GEO'
      : types.length > 0
        ? 'TYPES'
        : service.kind === 'amount' || amount > 0
          ? 'AMOUNT'
          : undefined;
  const fenceCount = (fences.length === 0 ? 0 : fences.length) + request.fences;
  const has = (type: (typeof factorOrder)[number]) => kind === 'TYPES' && types.includes(type);
  const java = {
    requirement: kind ?? null,
    amount: kind === 'AMOUNT' ? amount : 0,
    inherence: has('inherence'),
    knowledge: has('knowledge'),
    possession: has('possession'),
    fenceCount,
  };
  // PY reads a null requirement as OTHER, and its one-shot iterator loses every type after one that is missing
  // (the SDK's bug, which the canonical order keeps as small as it can be).
  const python = {
    ...java,
    requirement: kind ?? 'OTHER',
    knowledge: has('inherence') && has('knowledge'),
    possession: has('inherence') && has('knowledge') && has('possession'),
  };
  return { python, java };
}

const cases = services.flatMap((service) =>
  service.fenceVariants.flatMap((fences) =>
    requests.map((request) => ({
      title: `${service.name} with ${fences.length} fence(s), ${request.name}`,
      service,
      fences,
      request,
    })),
  ),
);

describe('the kind of requirement, from the service through the device to the SDKs', () => {
  it.each(cases)('$title', ({ service, fences, request }) => {
    const policy = effectivePolicy(
      parseServicePolicy(service.body(fences)),
      request.body === undefined ? undefined : parseAuthRequestPolicy(request.body),
    );
    // What the device receives, and what the reference authenticator answers with.
    const onDevice = parseEffectivePolicy(JSON.parse(JSON.stringify(printEffectivePolicy(policy))));
    const report = evaluate(
      onDevice,
      { methods: {}, now: new Date('2026-11-25T12:00:00Z') },
      { kind: 'approve' },
    ).authPolicy;
    const wire: unknown = JSON.parse(JSON.stringify(report));
    const summary = (read: ReturnType<typeof pythonAuthPolicy>) => {
      const { fences: read_fences, ...rest } = read;
      return { ...rest, fenceCount: read_fences.length };
    };
    const want = expected(service, fences, request);
    expect({ python: summary(pythonAuthPolicy(wire)), java: summary(javaAuthPolicy(wire)) }).toEqual(want);
  });

  it('hands a METHOD_AMOUNT of 0 with a territory to the device as "amount", and the answer says amount 0', () => {
    const policy = effectivePolicy(
      parseServicePolicy({ type: 'METHOD_AMOUNT', amount: 0, fences: [territory] }),
    );
    const printed = printEffectivePolicy(policy);
    expect(printed.demand).toEqual({ kind: 'amount', amount: 0, types: [] });
    const report = evaluate(
      parseEffectivePolicy(printed),
      { methods: {}, now: new Date() },
      { kind: 'approve' },
    ).authPolicy;
    expect(report).toEqual({
      requirement: 'amount',
      amount: 0,
      geofences: [
        { type: 'TERRITORY', name: 'Nevada', country: 'US', administrative_area: 'US-NV', postal_code: null },
      ],
    });
  });

  it('tells no policy apart from an amount of 0', () => {
    const none = printEffectivePolicy(
      effectivePolicy(parseServicePolicy({ minimum_requirements: [], factors: [] })),
    );
    const zero = printEffectivePolicy(
      effectivePolicy(parseServicePolicy({ type: 'METHOD_AMOUNT', amount: 0 })),
    );
    expect([none.demand, zero.demand]).toEqual([
      { kind: 'none', amount: 0, types: [] },
      { kind: 'amount', amount: 0, types: [] },
    ]);
  });
});
