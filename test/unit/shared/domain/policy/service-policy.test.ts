import { describe, expect, it } from 'vitest';
import {
  blankServicePolicy,
  parseServicePolicy,
  printServicePolicy,
} from '#shared/domain/policy/service-policy';
import { javaProblems, pythonProblems } from '#test/unit/shared/domain/policy/sdk-readers';

function normalise(input: unknown): Record<string, unknown> {
  return printServicePolicy(parseServicePolicy(input));
}

function expectReadableBySdks(printed: Record<string, unknown>): void {
  expect(javaProblems(printed)).toEqual([]);
  expect(pythonProblems(printed)).toEqual([]);
}

const blank = { type: 'LEGACY', minimum_requirements: [], factors: [] };

const forced = { requirement: 'forced requirement', quickfail: false, priority: 1 };

const weekDays = {
  name: 'Week Days',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  'start hour': 0,
  'end hour': 23,
  'start minute': 0,
  'end minute': 59,
  timezone: 'America/Los_Angeles',
};
const weekEnds = {
  ...weekDays,
  name: 'Week Ends',
  days: ['Saturday', 'Sunday'],
  timezone: 'America/New_York',
};
const printedWeekDays = {
  name: 'Week Days',
  days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  'start hour': 0,
  'start minute': 0,
  'end hour': 23,
  'end minute': 59,
  timezone: 'America/Los_Angeles',
};
const printedWeekEnds = {
  ...printedWeekDays,
  name: 'Week Ends',
  days: ['Saturday', 'Sunday'],
  timezone: 'America/New_York',
};

describe('the blank policy', () => {
  it('prints exactly the blank LEGACY policy of docs/protocol.md#policies', () => {
    expect(JSON.stringify(printServicePolicy(blankServicePolicy))).toBe(
      '{"type":"LEGACY","minimum_requirements":[],"factors":[]}',
    );
  });

  it('is what an empty LEGACY body normalises to', () => {
    expect(parseServicePolicy({ type: 'LEGACY', minimum_requirements: [], factors: [] })).toEqual(
      blankServicePolicy,
    );
  });

  it('cannot be changed by a caller', () => {
    expect(Object.isFrozen(blankServicePolicy)).toBe(true);
  });
});

describe('PY ServiceSecurityPolicy (untyped, quickfail, device integrity always present)', () => {
  it('normalises the body of PY tests/shared.py test_set_service_policy_success to the blank policy', () => {
    const input = {
      factors: [
        {
          factor: 'device integrity',
          requirement: 'forced requirement',
          quickfail: false,
          priority: 1,
          attributes: { 'factor enabled': 0 },
        },
      ],
      minimum_requirements: [],
    };
    expect(normalise(input)).toEqual(blank);
  });

  it('keeps every requirement and factor, in the canonical order', () => {
    const input = {
      factors: [
        { factor: 'device integrity', ...forced, attributes: { 'factor enabled': 1 } },
        {
          factor: 'geofence',
          ...forced,
          attributes: {
            locations: [
              { radius: 500.0, latitude: 12.3, longitude: 23.4, name: 'Location Alpha' },
              { radius: 1000.0, latitude: 32.1, longitude: 43.2, name: 'Location Beta' },
            ],
          },
        },
        { factor: 'timefence', ...forced, attributes: { 'time fences': [weekDays, weekEnds] } },
      ],
      minimum_requirements: [
        { requirement: 'authenticated', any: 2, knowledge: 0, inherence: 0, possession: 0 },
      ],
    };
    const printed = normalise(input);
    expect(printed).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 2, knowledge: 0, inherence: 0, possession: 0 },
      ],
      factors: [
        {
          factor: 'geofence',
          ...forced,
          attributes: {
            locations: [
              { name: 'Location Alpha', latitude: 12.3, longitude: 23.4, radius: 500 },
              { name: 'Location Beta', latitude: 32.1, longitude: 43.2, radius: 1000 },
            ],
          },
        },
        { factor: 'timefence', ...forced, attributes: { 'time fences': [printedWeekDays, printedWeekEnds] } },
        { factor: 'device integrity', ...forced, attributes: { 'factor enabled': 1 } },
      ],
    });
    expectReadableBySdks(printed);
  });

  it('reads `all` as `any` and never prints it', () => {
    const input = {
      minimum_requirements: [
        { requirement: 'authenticated', all: 3, knowledge: 0, inherence: 0, possession: 0 },
      ],
      factors: [],
    };
    expect(normalise(input)).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 3, knowledge: 0, inherence: 0, possession: 0 },
      ],
      factors: [],
    });
  });

  it('keeps quickfail, priority and an "allowed" requirement as given', () => {
    const input = {
      minimum_requirements: [],
      factors: [
        {
          factor: 'device integrity',
          requirement: 'allowed',
          quickfail: true,
          priority: 2,
          attributes: { 'factor enabled': 1 },
        },
      ],
    };
    expect(normalise(input).factors).toEqual([
      {
        factor: 'device integrity',
        requirement: 'allowed',
        quickfail: true,
        priority: 2,
        attributes: { 'factor enabled': 1 },
      },
    ]);
  });

  it('reads a requirement of "enabled" that demands nothing as no requirement', () => {
    const input = {
      minimum_requirements: [{ requirement: 'enabled', any: 0, knowledge: 0, inherence: 0, possession: 0 }],
      factors: [],
    };
    expect(normalise(input)).toEqual(blank);
  });
});

describe('JV typed LEGACY (no quickfail, device integrity only when enabled)', () => {
  it('normalises the body of getTransportPolicyFromDomainPolicy', () => {
    const input = {
      type: 'LEGACY',
      factors: [
        {
          factor: 'geofence',
          requirement: 'forced requirement',
          priority: 1,
          attributes: {
            locations: [
              { name: 'Large Fence', latitude: 45.125, longitude: 150.51, radius: 15200.0 },
              { latitude: -50.0111, longitude: -140.0, radius: 100.0 },
            ],
          },
        },
        {
          factor: 'timefence',
          requirement: 'forced requirement',
          priority: 1,
          attributes: { 'time fences': [weekEnds] },
        },
        {
          factor: 'device integrity',
          requirement: 'forced requirement',
          priority: 1,
          attributes: { 'factor enabled': 1 },
        },
      ],
      minimum_requirements: [
        { requirement: 'authenticated', any: 0, knowledge: 1, inherence: 0, possession: 1 },
      ],
    };
    const printed = normalise(input);
    expect(printed).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 0, knowledge: 1, inherence: 0, possession: 1 },
      ],
      factors: [
        {
          factor: 'geofence',
          ...forced,
          attributes: {
            locations: [
              { name: 'Large Fence', latitude: 45.125, longitude: 150.51, radius: 15200 },
              { latitude: -50.0111, longitude: -140, radius: 100 },
            ],
          },
        },
        { factor: 'timefence', ...forced, attributes: { 'time fences': [printedWeekEnds] } },
        { factor: 'device integrity', ...forced, attributes: { 'factor enabled': 1 } },
      ],
    });
    expectReadableBySdks(printed);
  });

  it('reads the nulls of AuthPolicy/ServicePolicy requirements as 0', () => {
    const input = {
      type: 'LEGACY',
      factors: [],
      minimum_requirements: [
        { requirement: 'authenticated', any: null, knowledge: 1, inherence: null, possession: null },
      ],
    };
    expect(normalise(input)).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 0, knowledge: 1, inherence: 0, possession: 0 },
      ],
      factors: [],
    });
  });

  it('reads a null type as LEGACY', () => {
    expect(normalise({ type: null, minimum_requirements: [], factors: [] })).toEqual(blank);
  });

  it('stores time zones under their canonical id and exact case', () => {
    const input = {
      type: 'LEGACY',
      minimum_requirements: [],
      factors: [
        { factor: 'timefence', attributes: { 'time fences': [{ ...weekDays, timezone: 'us/eastern' }] } },
      ],
    };
    expect(normalise(input).factors).toEqual([
      {
        factor: 'timefence',
        ...forced,
        attributes: { 'time fences': [{ ...printedWeekDays, timezone: 'America/New_York' }] },
      },
    ]);
  });
});

describe('PY flat LegacyPolicy', () => {
  it('is translated into the minimum_requirements/factors form', () => {
    const input = {
      type: 'LEGACY',
      amount: 0,
      inherence_required: true,
      knowledge_required: false,
      possession_required: true,
      deny_rooted_jailbroken: true,
      fences: [
        { type: 'GEO_CIRCLE', name: 'Location Alpha', latitude: 12.3, longitude: 23.4, radius: 500.0 },
        { type: 'GEO_CIRCLE', name: null, latitude: 32.1, longitude: 43.2, radius: 1000.0 },
      ],
      time_restrictions: [
        {
          days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
          'start hour': 0,
          'end hour': 23,
          name: 'Week Days',
          'start minute': 0,
          'end minute': 59,
          timezone: 'America/Los_Angeles',
        },
      ],
    };
    const printed = normalise(input);
    expect(printed).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 0, knowledge: 0, inherence: 1, possession: 1 },
      ],
      factors: [
        {
          factor: 'geofence',
          ...forced,
          attributes: {
            locations: [
              { name: 'Location Alpha', latitude: 12.3, longitude: 23.4, radius: 500 },
              { latitude: 32.1, longitude: 43.2, radius: 1000 },
            ],
          },
        },
        { factor: 'timefence', ...forced, attributes: { 'time fences': [printedWeekDays] } },
        { factor: 'device integrity', ...forced, attributes: { 'factor enabled': 1 } },
      ],
    });
    expectReadableBySdks(printed);
  });

  it('prints an amount-only policy with an empty factor list', () => {
    const input = {
      type: 'LEGACY',
      amount: 2,
      inherence_required: false,
      knowledge_required: false,
      possession_required: false,
      deny_rooted_jailbroken: false,
      fences: [],
      time_restrictions: [],
    };
    expect(normalise(input)).toEqual({
      type: 'LEGACY',
      minimum_requirements: [
        { requirement: 'authenticated', any: 2, knowledge: 0, inherence: 0, possession: 0 },
      ],
      factors: [],
    });
  });
});

const pyGeoCircle = { type: 'GEO_CIRCLE', name: null, latitude: 45.125, longitude: 150.51, radius: 15200.0 };
const pyTerritory = {
  type: 'TERRITORY',
  name: 'US-NV',
  administrative_area: 'US-NV',
  country: 'US',
  postal_code: '89120',
};
const pyBareTerritory = {
  type: 'TERRITORY',
  name: null,
  administrative_area: null,
  country: 'US',
  postal_code: null,
};
const printedGeoCircle = { type: 'GEO_CIRCLE', latitude: 45.125, longitude: 150.51, radius: 15200 };
const printedTerritory = {
  type: 'TERRITORY',
  name: 'US-NV',
  country: 'US',
  administrative_area: 'US-NV',
  postal_code: '89120',
};
const printedBareTerritory = {
  type: 'TERRITORY',
  country: 'US',
  administrative_area: null,
  postal_code: null,
};

describe('METHOD_AMOUNT', () => {
  const printed = {
    type: 'METHOD_AMOUNT',
    amount: 2,
    fences: [printedGeoCircle, printedTerritory, printedBareTerritory],
    deny_rooted_jailbroken: true,
    deny_emulator_simulator: false,
  };

  it('as PY to_dict sends it, with null fence keys', () => {
    const input = {
      type: 'METHOD_AMOUNT',
      fences: [pyGeoCircle, pyTerritory, pyBareTerritory],
      amount: 2,
      deny_rooted_jailbroken: true,
      deny_emulator_simulator: false,
    };
    expect(normalise(input)).toEqual(printed);
    expectReadableBySdks(normalise(input));
  });

  it('as JV sends it, without nulls', () => {
    const input = {
      type: 'METHOD_AMOUNT',
      deny_rooted_jailbroken: true,
      deny_emulator_simulator: false,
      fences: [
        { type: 'GEO_CIRCLE', latitude: 45.125, longitude: 150.51, radius: 15200.0 },
        {
          type: 'TERRITORY',
          name: 'US-NV',
          country: 'US',
          administrative_area: 'US-NV',
          postal_code: '89120',
        },
        { type: 'TERRITORY', country: 'US' },
      ],
      amount: 2,
    };
    expect(normalise(input)).toEqual(printed);
  });

  it('defaults absent device flags and fences to false and none', () => {
    expect(normalise({ type: 'METHOD_AMOUNT', amount: 0 })).toEqual({
      type: 'METHOD_AMOUNT',
      amount: 0,
      fences: [],
      deny_rooted_jailbroken: false,
      deny_emulator_simulator: false,
    });
  });

  it.each([0, 1, 2, 3, 4, 5])('keeps amount %i, as the SDK features expect', (amount) => {
    expect(normalise({ type: 'METHOD_AMOUNT', amount }).amount).toBe(amount);
  });
});

describe('FACTORS', () => {
  const printed = {
    type: 'FACTORS',
    factors: ['INHERENCE', 'POSSESSION'],
    fences: [printedTerritory],
    deny_rooted_jailbroken: false,
    deny_emulator_simulator: true,
  };

  it('as PY to_dict sends it', () => {
    const input = {
      type: 'FACTORS',
      fences: [pyTerritory],
      factors: ['INHERENCE', 'POSSESSION'],
      deny_rooted_jailbroken: false,
      deny_emulator_simulator: true,
    };
    expect(normalise(input)).toEqual(printed);
    expectReadableBySdks(normalise(input));
  });

  it('as JV sends it', () => {
    const input = {
      type: 'FACTORS',
      deny_rooted_jailbroken: false,
      deny_emulator_simulator: true,
      fences: [
        {
          type: 'TERRITORY',
          name: 'US-NV',
          country: 'US',
          administrative_area: 'US-NV',
          postal_code: '89120',
        },
      ],
      factors: ['INHERENCE', 'POSSESSION'],
    };
    expect(normalise(input)).toEqual(printed);
  });

  it('upper-cases and orders the factor types', () => {
    const input = { type: 'FACTORS', factors: ['possession', 'Knowledge', 'INHERENCE'] };
    expect(normalise(input).factors).toEqual(['INHERENCE', 'KNOWLEDGE', 'POSSESSION']);
  });
});

describe('COND_GEO', () => {
  const printed = {
    type: 'COND_GEO',
    fences: [printedGeoCircle, printedTerritory],
    inside: { type: 'METHOD_AMOUNT', amount: 2 },
    outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
    deny_rooted_jailbroken: true,
    deny_emulator_simulator: false,
  };

  it('as PY to_dict sends it: null fence keys, `fences: []` and no flags inside', () => {
    const input = {
      type: 'COND_GEO',
      fences: [pyGeoCircle, pyTerritory],
      inside: { type: 'METHOD_AMOUNT', fences: [], amount: 2 },
      outside: { type: 'FACTORS', fences: [], factors: ['KNOWLEDGE'] },
      deny_rooted_jailbroken: true,
      deny_emulator_simulator: false,
    };
    expect(normalise(input)).toEqual(printed);
    expectReadableBySdks(normalise(input));
  });

  it('as JV sends it: nulls omitted, nested policies bare', () => {
    const input = {
      type: 'COND_GEO',
      deny_rooted_jailbroken: true,
      deny_emulator_simulator: false,
      fences: [
        { type: 'GEO_CIRCLE', latitude: 45.125, longitude: 150.51, radius: 15200.0 },
        {
          type: 'TERRITORY',
          name: 'US-NV',
          country: 'US',
          administrative_area: 'US-NV',
          postal_code: '89120',
        },
      ],
      inside: { type: 'METHOD_AMOUNT', amount: 2 },
      outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
    };
    expect(normalise(input)).toEqual(printed);
  });

  it('accepts explicitly false flags inside', () => {
    const input = {
      type: 'COND_GEO',
      fences: [pyTerritory],
      inside: {
        type: 'METHOD_AMOUNT',
        amount: 1,
        deny_rooted_jailbroken: false,
        deny_emulator_simulator: null,
      },
      outside: { type: 'METHOD_AMOUNT', amount: 3, fences: null },
    };
    expect(normalise(input).inside).toEqual({ type: 'METHOD_AMOUNT', amount: 1 });
  });
});

describe('stored form', () => {
  it('is plain JSON', () => {
    const policy = parseServicePolicy({
      type: 'COND_GEO',
      fences: [pyGeoCircle],
      inside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
      outside: { type: 'METHOD_AMOUNT', amount: 1 },
    });
    expect(JSON.parse(JSON.stringify(policy))).toEqual(policy);
  });

  it('turns -0 into 0 so a JSON round trip keeps it equal', () => {
    const policy = parseServicePolicy({
      type: 'METHOD_AMOUNT',
      amount: 1,
      fences: [{ type: 'GEO_CIRCLE', latitude: -0, longitude: -0, radius: 10 }],
    });
    const fence = policy.type === 'METHOD_AMOUNT' ? policy.fences[0] : undefined;
    expect(
      fence?.type === 'GEO_CIRCLE' && Object.is(fence.latitude, 0) && Object.is(fence.longitude, 0),
    ).toBe(true);
  });
});
