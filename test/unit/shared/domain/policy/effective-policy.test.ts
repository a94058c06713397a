import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authPolicyReport } from '#shared/domain/policy/auth-policy-report';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import {
  type EffectivePolicy,
  effectivePolicy,
  type PolicyFence,
} from '#shared/domain/policy/effective-policy';
import {
  parseEffectivePolicy,
  printEffectivePolicy,
  printPolicyFence,
} from '#shared/domain/policy/effective-policy-wire';
import {
  blankServicePolicy,
  InvalidPolicyError,
  parseServicePolicy,
} from '#shared/domain/policy/service-policy';
import { anyEffectivePolicy } from '#test/unit/shared/authenticator/arbitraries';

const service = parseServicePolicy;
const request = parseAuthRequestPolicy;

const forced = { requirement: 'forced requirement', priority: 1 };
const legacyService = (requirement: Record<string, unknown> | null, factors: unknown[] = []) => ({
  type: 'LEGACY',
  minimum_requirements: requirement === null ? [] : [{ requirement: 'authenticated', ...requirement }],
  factors,
});
const legacyRequest = (requirement: Record<string, unknown> | null, factors: unknown[] = []) => ({
  minimum_requirements: requirement === null ? [] : [{ requirement: 'authenticated', ...requirement }],
  factors,
});
const integrity = (on: 0 | 1) => ({
  factor: 'device integrity',
  ...forced,
  attributes: { 'factor enabled': on },
});
const geofence = (...locations: unknown[]) => ({ factor: 'geofence', ...forced, attributes: { locations } });

const home = { name: 'Home', latitude: 36.12, longitude: -115.15, radius: 200 };
const office = { name: 'Office', latitude: 40.7, longitude: -74.0, radius: 500 };
const nevada = {
  type: 'TERRITORY',
  name: 'Nevada',
  country: 'US',
  administrative_area: 'US-NV',
  postal_code: null,
};
const weekDays = {
  name: 'Week Days',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  'start hour': 9,
  'start minute': 0,
  'end hour': 17,
  'end minute': 0,
  timezone: 'America/Los_Angeles',
};

const legacyCircle = (circle: typeof home) => ({ type: 'LEGACY_CIRCLE', ...circle });
const nevadaFence = {
  type: 'TERRITORY',
  name: 'Nevada',
  country: 'US',
  administrativeArea: 'US-NV',
  postalCode: null,
};
const weekDaysFence = {
  name: 'Week Days',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  startHour: 9,
  startMinute: 0,
  endHour: 17,
  endMinute: 0,
  timezone: 'America/Los_Angeles',
};
const open: EffectivePolicy = {
  demand: { kind: 'none', amount: 0, types: [] },
  fenceGroups: [],
  timeFenceGroups: [],
  denyRootedJailbroken: false,
  denyEmulatorSimulator: false,
};

describe('effectivePolicy maps each service policy kind onto methods, types, groups and flags', () => {
  it.each<[string, unknown, EffectivePolicy]>([
    ['the blank policy', { type: 'LEGACY', minimum_requirements: [], factors: [] }, open],
    [
      'LEGACY any, geofence, time fence and device integrity',
      legacyService({ any: 2 }, [
        geofence(home),
        { factor: 'timefence', ...forced, attributes: { 'time fences': [weekDays] } },
        integrity(1),
      ]),
      {
        ...open,
        demand: { kind: 'amount', amount: 2, types: [] },
        fenceGroups: [[legacyCircle(home)]],
        timeFenceGroups: [[weekDaysFence]],
        denyRootedJailbroken: true,
      } as EffectivePolicy,
    ],
    [
      'LEGACY types, listed in the one order',
      legacyService({ knowledge: 1, possession: 1, inherence: 1 }),
      { ...open, demand: { kind: 'types', amount: 0, types: ['inherence', 'knowledge', 'possession'] } },
    ],
    [
      'LEGACY factors that are only "allowed", which enforce nothing',
      legacyService(null, [
        { ...geofence(home), requirement: 'allowed' },
        { ...integrity(1), requirement: 'allowed' },
        { factor: 'timefence', requirement: 'allowed', attributes: { 'time fences': [weekDays] } },
      ]),
      open,
    ],
    [
      'METHOD_AMOUNT with fences and both flags',
      {
        type: 'METHOD_AMOUNT',
        amount: 3,
        fences: [{ type: 'GEO_CIRCLE', ...office }, nevada],
        deny_rooted_jailbroken: true,
        deny_emulator_simulator: true,
      },
      {
        demand: { kind: 'amount', amount: 3, types: [] },
        fenceGroups: [[{ type: 'GEO_CIRCLE', ...office }, nevadaFence]],
        timeFenceGroups: [],
        denyRootedJailbroken: true,
        denyEmulatorSimulator: true,
      } as EffectivePolicy,
    ],
    [
      'FACTORS, lower-cased',
      { type: 'FACTORS', factors: ['POSSESSION', 'INHERENCE'] },
      { ...open, demand: { kind: 'types', amount: 0, types: ['inherence', 'possession'] } },
    ],
    [
      'COND_GEO, whose fences choose a branch and are no group',
      {
        type: 'COND_GEO',
        fences: [nevada],
        inside: { type: 'METHOD_AMOUNT', amount: 1 },
        outside: { type: 'FACTORS', factors: ['KNOWLEDGE', 'INHERENCE'] },
        deny_emulator_simulator: true,
      },
      {
        ...open,
        demand: {
          kind: 'cond_geo',
          fences: [nevadaFence],
          inside: { kind: 'amount', amount: 1, types: [] },
          outside: { kind: 'types', amount: 0, types: ['inherence', 'knowledge'] },
        },
        denyEmulatorSimulator: true,
      } as EffectivePolicy,
    ],
  ])('%s', (_, body, expected) => {
    expect(effectivePolicy(service(body))).toEqual(expected);
  });
});

describe('effectivePolicy: for each constraint the more restrictive of service and request wins', () => {
  const demandOf = (serviceBody: unknown, requestBody: unknown) =>
    effectivePolicy(service(serviceBody), request(requestBody)).demand;

  it.each([
    ['service amount above the request', { type: 'METHOD_AMOUNT', amount: 4 }, legacyRequest({ any: 1 }), 4],
    ['request amount above the service', { type: 'METHOD_AMOUNT', amount: 1 }, legacyRequest({ any: 3 }), 3],
    ['LEGACY any against LEGACY any', legacyService({ any: 1 }), legacyRequest({ any: 2 }), 2],
    ['no request requirement', legacyService({ any: 2 }), legacyRequest(null), 2],
  ])('amount: %s → the larger', (_, serviceBody, requestBody, amount) => {
    expect(demandOf(serviceBody, requestBody)).toEqual({ kind: 'amount', amount, types: [] });
  });

  it.each([
    [
      'FACTORS and a request type',
      { type: 'FACTORS', factors: ['KNOWLEDGE'] },
      legacyRequest({ inherence: 1 }),
      ['inherence', 'knowledge'],
    ],
    [
      'LEGACY types and request types',
      legacyService({ possession: 1 }),
      legacyRequest({ knowledge: 1, possession: 1 }),
      ['knowledge', 'possession'],
    ],
    ['types only on the service', legacyService({ inherence: 1 }), legacyRequest(null), ['inherence']],
  ])('types: %s → every type either side requires', (_, serviceBody, requestBody, types) => {
    expect(demandOf(serviceBody, requestBody)).toEqual({ kind: 'types', amount: 0, types });
  });

  it('amount and types from different sides both hold', () => {
    expect(demandOf({ type: 'METHOD_AMOUNT', amount: 2 }, legacyRequest({ knowledge: 1 }))).toEqual({
      kind: 'types',
      amount: 2,
      types: ['knowledge'],
    });
  });

  it.each([
    ['request turns device integrity on', { type: 'METHOD_AMOUNT', amount: 0 }, [integrity(1)], true],
    [
      "PY's explicit 0 cannot turn the service's check off",
      { type: 'METHOD_AMOUNT', amount: 0, deny_rooted_jailbroken: true },
      [integrity(0)],
      true,
    ],
    ['neither side asks', { type: 'METHOD_AMOUNT', amount: 0 }, [integrity(0)], false],
  ])('deny_rooted_jailbroken: %s', (_, serviceBody, factors, deny) => {
    expect(
      effectivePolicy(service(serviceBody), request(legacyRequest(null, factors))).denyRootedJailbroken,
    ).toBe(deny);
  });

  it('deny_emulator_simulator comes from the service alone, a request cannot clear it', () => {
    const merged = effectivePolicy(
      service({ type: 'FACTORS', factors: ['INHERENCE'], deny_emulator_simulator: true }),
      request(legacyRequest(null, [integrity(0)])),
    );
    expect(merged.denyEmulatorSimulator).toBe(true);
  });

  it('geofences: each side is its own group, so the device must satisfy both', () => {
    const merged = effectivePolicy(
      service({ type: 'METHOD_AMOUNT', amount: 1, fences: [nevada] }),
      request(legacyRequest(null, [geofence(home, office)])),
    );
    expect(merged.fenceGroups).toEqual([[nevadaFence], [legacyCircle(home), legacyCircle(office)]]);
  });

  it('geofences: a request repeating the service group adds nothing', () => {
    const merged = effectivePolicy(
      service(legacyService(null, [geofence(home)])),
      request(legacyRequest(null, [geofence(home)])),
    );
    expect(merged.fenceGroups).toEqual([[legacyCircle(home)]]);
  });

  it('time fences: the service windows are kept', () => {
    const merged = effectivePolicy(
      service(
        legacyService(null, [{ factor: 'timefence', ...forced, attributes: { 'time fences': [weekDays] } }]),
      ),
      request(legacyRequest({ any: 1 })),
    );
    expect(merged.timeFenceGroups).toEqual([[weekDaysFence]]);
  });

  it('COND_GEO stays conditional, with the request applied on top of both branches', () => {
    const merged = effectivePolicy(
      service({
        type: 'COND_GEO',
        fences: [nevada],
        inside: { type: 'METHOD_AMOUNT', amount: 1 },
        outside: { type: 'FACTORS', factors: ['POSSESSION'] },
        deny_rooted_jailbroken: false,
      }),
      request(legacyRequest({ any: 2 }, [geofence(home), integrity(1)])),
    );
    expect(merged).toEqual({
      demand: {
        kind: 'cond_geo',
        fences: [nevadaFence],
        inside: { kind: 'amount', amount: 2, types: [] },
        outside: { kind: 'types', amount: 2, types: ['possession'] },
      },
      fenceGroups: [[legacyCircle(home)]],
      timeFenceGroups: [],
      denyRootedJailbroken: true,
      denyEmulatorSimulator: false,
    });
  });

  it('COND_GEO branches keep what is stricter than the request', () => {
    const merged = effectivePolicy(
      service({
        type: 'COND_GEO',
        fences: [nevada],
        inside: { type: 'METHOD_AMOUNT', amount: 3 },
        outside: { type: 'FACTORS', factors: ['INHERENCE'] },
      }),
      request(legacyRequest({ knowledge: 1 })),
    );
    expect(merged.demand).toEqual({
      kind: 'cond_geo',
      fences: [nevadaFence],
      inside: { kind: 'types', amount: 3, types: ['knowledge'] },
      outside: { kind: 'types', amount: 0, types: ['inherence', 'knowledge'] },
    });
  });

  it('no request is the service policy alone', () => {
    const body = { type: 'FACTORS', factors: ['KNOWLEDGE'], fences: [nevada] };
    expect(effectivePolicy(service(body), request(legacyRequest(null)))).toEqual(
      effectivePolicy(service(body)),
    );
  });

  it('a request on the blank service policy is the request alone', () => {
    expect(effectivePolicy(blankServicePolicy, request(legacyRequest({ any: 3 }, [integrity(1)])))).toEqual({
      ...open,
      demand: { kind: 'amount', amount: 3, types: [] },
      denyRootedJailbroken: true,
    });
  });
});

const example: EffectivePolicy = {
  demand: {
    kind: 'cond_geo',
    fences: [{ type: 'TERRITORY', name: null, country: 'US', administrativeArea: null, postalCode: '89120' }],
    inside: { kind: 'amount', amount: 1, types: [] },
    outside: { kind: 'types', amount: 2, types: ['inherence', 'possession'] },
  },
  fenceGroups: [
    [
      { type: 'LEGACY_CIRCLE', name: null, latitude: 36.120825, longitude: -115.157216, radius: 200 },
      { type: 'GEO_CIRCLE', name: 'HQ North', latitude: 36.12102, longitude: -115.15646, radius: 550 },
    ],
  ],
  timeFenceGroups: [[weekDaysFence as EffectivePolicy['timeFenceGroups'][number][number]]],
  denyRootedJailbroken: true,
  denyEmulatorSimulator: false,
};
const examplePrinted = {
  demand: {
    kind: 'cond_geo',
    fences: [
      { type: 'TERRITORY', name: null, country: 'US', administrative_area: null, postal_code: '89120' },
    ],
    inside: { kind: 'amount', amount: 1, types: [] },
    outside: { kind: 'types', amount: 2, types: ['inherence', 'possession'] },
  },
  fence_groups: [
    [
      { name: null, latitude: 36.120825, longitude: -115.157216, radius: 200 },
      { type: 'GEO_CIRCLE', name: 'HQ North', latitude: 36.12102, longitude: -115.15646, radius: 550 },
    ],
  ],
  time_fence_groups: [[weekDays]],
  deny_rooted_jailbroken: true,
  deny_emulator_simulator: false,
};

describe('the wire form handed to devices', () => {
  it('prints every key, fences as devices report them', () => {
    expect(printEffectivePolicy(example)).toEqual(examplePrinted);
  });

  it('parses back to the same policy', () => {
    expect(parseEffectivePolicy(examplePrinted)).toEqual(example);
  });

  it('prints a plain demand with its kind', () => {
    expect(printEffectivePolicy(open)).toEqual({
      demand: { kind: 'none', amount: 0, types: [] },
      fence_groups: [],
      time_fence_groups: [],
      deny_rooted_jailbroken: false,
      deny_emulator_simulator: false,
    });
  });

  function reasonFor(input: unknown): string {
    try {
      parseEffectivePolicy(input);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidPolicyError);
      return (error as InvalidPolicyError).reason;
    }
    throw new Error('the policy was accepted');
  }
  const printedOpen = printEffectivePolicy(open);
  const withDemand = (demand: unknown) => ({ ...printedOpen, demand });
  const withGroup = (...fences: unknown[]) => ({ ...printedOpen, fence_groups: [fences] });
  const without = (object: Record<string, unknown>, key: string) =>
    Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));

  it.each([
    ['not an object', [], 'effective_policy: must be an object'],
    [
      'a missing key',
      without(printedOpen, 'deny_emulator_simulator'),
      'effective_policy.deny_emulator_simulator: required',
    ],
    ['an unknown key', { ...printedOpen, quickfail: true }, 'effective_policy.quickfail: unknown key'],
    [
      'a flag that is not boolean',
      { ...printedOpen, deny_rooted_jailbroken: 1 },
      'effective_policy.deny_rooted_jailbroken: must be true or false',
    ],
    [
      'an unknown demand kind',
      withDemand({ kind: 'legacy', amount: 0, types: [] }),
      'effective_policy.demand.kind: must be one of "amount", "types", "none", "cond_geo"',
    ],
    [
      'a demand without types',
      withDemand({ kind: 'none', amount: 0 }),
      'effective_policy.demand.types: required',
    ],
    [
      'COND_GEO keys on a plain demand',
      withDemand({ kind: 'none', amount: 0, types: [], inside: {} }),
      'effective_policy.demand.inside: unknown key',
    ],
    [
      'an amount above five',
      withDemand({ kind: 'amount', amount: 6, types: [] }),
      'effective_policy.demand.amount: 6 is out of range, must be from 0 to 5',
    ],
    [
      'an upper-case type',
      withDemand({ kind: 'types', amount: 0, types: ['KNOWLEDGE'] }),
      'effective_policy.demand.types[0]: must be one of "inherence", "knowledge", "possession"',
    ],
    [
      'types out of order',
      withDemand({ kind: 'types', amount: 0, types: ['knowledge', 'inherence'] }),
      'effective_policy.demand.types: must list distinct types in the order inherence, knowledge, possession',
    ],
    [
      'types with kind "amount"',
      withDemand({ kind: 'amount', amount: 1, types: ['knowledge'] }),
      'effective_policy.demand.types: must be empty for kind "amount"',
    ],
    [
      'kind "types" without types',
      withDemand({ kind: 'types', amount: 1, types: [] }),
      'effective_policy.demand.types: must not be empty for kind "types"',
    ],
    [
      'an amount with kind "none"',
      withDemand({ kind: 'none', amount: 1, types: [] }),
      'effective_policy.demand.amount: must be 0 for kind "none"',
    ],
    [
      'a branch without its kind',
      withDemand({ ...examplePrinted.demand, inside: { amount: 1, types: [] } }),
      'effective_policy.demand.inside.kind: required',
    ],
    [
      'a repeated type',
      withDemand({ kind: 'types', amount: 0, types: ['knowledge', 'knowledge'] }),
      'effective_policy.demand.types: must list distinct types in the order inherence, knowledge, possession',
    ],
    [
      'COND_GEO without fences',
      withDemand({ ...examplePrinted.demand, fences: [] }),
      'effective_policy.demand.fences: must hold at least one fence',
    ],
    [
      'COND_GEO without a branch',
      withDemand(without(examplePrinted.demand, 'outside')),
      'effective_policy.demand.outside: required',
    ],
    [
      'an empty fence group',
      { ...printedOpen, fence_groups: [[]] },
      'effective_policy.fence_groups[0]: must not be empty',
    ],
    [
      'an empty time-fence group',
      { ...printedOpen, time_fence_groups: [[]] },
      'effective_policy.time_fence_groups[0]: must not be empty',
    ],
    [
      'a legacy circle without its name',
      withGroup({ latitude: 1, longitude: 2, radius: 3 }),
      'effective_policy.fence_groups[0][0].name: required',
    ],
    [
      'a territory without its postal code',
      withGroup({ type: 'TERRITORY', name: null, country: 'US', administrative_area: null }),
      'effective_policy.fence_groups[0][0].postal_code: required',
    ],
    [
      'an unknown fence type',
      withGroup({ type: 'POLYGON', name: null }),
      'effective_policy.fence_groups[0][0].type: unknown fence type "POLYGON", must be "GEO_CIRCLE", "TERRITORY" or absent for a legacy circle',
    ],
    [
      'a null fence type',
      withGroup({ type: null, name: null, latitude: 1, longitude: 2, radius: 3 }),
      'effective_policy.fence_groups[0][0].type: must be a string, must be "GEO_CIRCLE", "TERRITORY" or absent for a legacy circle',
    ],
    [
      'a circle with no radius',
      withGroup({ name: null, latitude: 1, longitude: 2, radius: 0 }),
      'effective_policy.fence_groups[0][0].radius: must be a number greater than 0',
    ],
  ])('refuses %s', (_, input, reason) => {
    expect(reasonFor(input)).toBe(reason);
  });

  it('print ∘ parse is stable for every policy a merge can produce', () => {
    fc.assert(
      fc.property(anyEffectivePolicy, (policy) => {
        const printed = printEffectivePolicy(policy);
        const wire: unknown = JSON.parse(JSON.stringify(printed));
        expect(parseEffectivePolicy(wire)).toEqual(policy);
        expect(printEffectivePolicy(parseEffectivePolicy(wire))).toEqual(printed);
      }),
    );
  });
});

describe('authPolicyReport, the auth_policy a device answers with', () => {
  it.each<[string, EffectivePolicy, Record<string, unknown>]>([
    ['no requirement', open, { requirement: null, geofences: [] }],
    [
      'an amount',
      { ...open, demand: { kind: 'amount', amount: 2, types: [] } },
      { requirement: 'amount', amount: 2, geofences: [] },
    ],
    [
      'an amount of 0, which a METHOD_AMOUNT policy may ask for and the SDKs read as AMOUNT',
      effectivePolicy(service({ type: 'METHOD_AMOUNT', amount: 0, fences: [nevada] })),
      { requirement: 'amount', amount: 0, geofences: [printPolicyFence(nevadaFence as PolicyFence)] },
    ],
    [
      'types, which win over an amount',
      { ...open, demand: { kind: 'types', amount: 2, types: ['inherence', 'possession'] } },
      { requirement: 'types', types: ['inherence', 'possession'], geofences: [] },
    ],
    [
      'COND_GEO, with its fences first and no amount or types',
      example,
      {
        requirement: 'cond_geo',
        geofences: [
          { type: 'TERRITORY', name: null, country: 'US', administrative_area: null, postal_code: '89120' },
          { name: null, latitude: 36.120825, longitude: -115.157216, radius: 200 },
          { type: 'GEO_CIRCLE', name: 'HQ North', latitude: 36.12102, longitude: -115.15646, radius: 550 },
        ],
      },
    ],
    [
      'a legacy request with types and unnamed geofences (the shape of JV ServiceV3AuthsGetResponseDeviceJWETest)',
      effectivePolicy(
        blankServicePolicy,
        request(
          legacyRequest({ knowledge: 1, inherence: 1, possession: 1 }, [
            geofence({ latitude: 36.120825, longitude: -115.157216, radius: 200 }),
          ]),
        ),
      ),
      {
        requirement: 'types',
        types: ['inherence', 'knowledge', 'possession'],
        geofences: [{ name: null, latitude: 36.120825, longitude: -115.157216, radius: 200 }],
      },
    ],
  ])('%s', (_, policy, expected) => {
    expect(authPolicyReport(policy)).toEqual(expected);
  });

  const allowedKeys: Record<string, string[]> = {
    null: ['requirement', 'geofences'],
    amount: ['requirement', 'amount', 'geofences'],
    types: ['requirement', 'types', 'geofences'],
    cond_geo: ['requirement', 'geofences'],
  };

  it('always carries exactly the keys its requirement allows, types in the order PY can read', () => {
    fc.assert(
      fc.property(anyEffectivePolicy, (policy) => {
        const report = authPolicyReport(policy);
        expect(Object.keys(report)).toEqual(allowedKeys[String(report.requirement)]);
        expect(Array.isArray(report.geofences)).toBe(true);
        const types = (report.types ?? []) as string[];
        expect(types).toEqual(
          ['inherence', 'knowledge', 'possession'].filter((type) => types.includes(type)),
        );
        // The requirement is the policy's kind: no "types" without a type, an amount of 0 only where one was asked for.
        expect(report.requirement ?? 'none').toEqual(policy.demand.kind);
        expect(report.requirement !== 'types' || types.length > 0).toBe(true);
      }),
    );
  });
});
