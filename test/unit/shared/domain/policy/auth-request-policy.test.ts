import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import type { LegacyPolicy } from '#shared/domain/policy/legacy';
import { InvalidPolicyError } from '#shared/domain/policy/service-policy';
import { javaRequestPolicy, pythonRequestPolicy } from '#test/unit/shared/authenticator/arbitraries';

function reasonFor(input: unknown): string {
  try {
    parseAuthRequestPolicy(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPolicyError);
    return (error as InvalidPolicyError).reason;
  }
  throw new Error('the policy was accepted');
}

const forced = { requirement: 'forced requirement', quickfail: false, priority: 1 } as const;
const none: LegacyPolicy = {
  type: 'LEGACY',
  amount: 0,
  inherence: false,
  knowledge: false,
  possession: false,
  geofence: null,
  timefence: null,
  deviceIntegrity: null,
};

describe('parseAuthRequestPolicy reads the policies the SDKs send', () => {
  it.each<[string, unknown, LegacyPolicy]>([
    [
      'PY AuthPolicy() — no requirement, device integrity listed as off',
      {
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
      },
      none,
    ],
    [
      'PY AuthPolicy(any=2, jailbreak_protection=True) with two named geofences',
      {
        factors: [
          {
            factor: 'device integrity',
            requirement: 'forced requirement',
            quickfail: false,
            priority: 1,
            attributes: { 'factor enabled': 1 },
          },
          {
            factor: 'geofence',
            requirement: 'forced requirement',
            quickfail: false,
            priority: 1,
            attributes: {
              locations: [
                { radius: 150.0, latitude: 23.4, longitude: -56.7, name: 'geo 1' },
                { radius: 100.0, latitude: -23.4, longitude: 56.7, name: 'geo 2' },
              ],
            },
          },
        ],
        minimum_requirements: [
          { requirement: 'authenticated', any: 2, knowledge: 0, inherence: 0, possession: 0 },
        ],
      },
      {
        ...none,
        amount: 2,
        deviceIntegrity: forced,
        geofence: {
          ...forced,
          locations: [
            { name: 'geo 1', latitude: 23.4, longitude: -56.7, radius: 150 },
            { name: 'geo 2', latitude: -23.4, longitude: 56.7, radius: 100 },
          ],
        },
      },
    ],
    [
      'JV AuthPolicy(null, true, null, true) — types with nulls, no factors',
      {
        minimum_requirements: [
          { requirement: 'authenticated', any: null, knowledge: null, inherence: 1, possession: 1 },
        ],
        factors: [],
      },
      { ...none, inherence: true, possession: true },
    ],
    [
      'JV with an unnamed geofence and device integrity on, no quickfail',
      {
        minimum_requirements: [],
        factors: [
          {
            factor: 'geofence',
            requirement: 'forced requirement',
            priority: 1,
            attributes: { locations: [{ radius: 150.0, latitude: 23.4, longitude: -56.7 }] },
          },
          {
            factor: 'device integrity',
            requirement: 'forced requirement',
            priority: 1,
            attributes: { 'factor enabled': 1 },
          },
        ],
      },
      {
        ...none,
        deviceIntegrity: forced,
        geofence: { ...forced, locations: [{ name: null, latitude: 23.4, longitude: -56.7, radius: 150 }] },
      },
    ],
    [
      'JV AuthPolicy(3, false, false, false)',
      {
        minimum_requirements: [
          { requirement: 'authenticated', any: 3, knowledge: 0, inherence: 0, possession: 0 },
        ],
        factors: [],
      },
      { ...none, amount: 3 },
    ],
    ['a harmless type: "LEGACY"', { type: 'LEGACY', minimum_requirements: [], factors: [] }, none],
  ])('%s', (_, body, expected) => {
    expect(parseAuthRequestPolicy(body)).toEqual(expected);
  });

  it('accepts every body PY and JV can send', () => {
    fc.assert(
      fc.property(fc.oneof(pythonRequestPolicy, javaRequestPolicy), (body) => {
        expect(parseAuthRequestPolicy(body).timefence).toBeNull();
      }),
    );
  });
});

const timeFence = {
  name: 'Office',
  days: ['Monday'],
  'start hour': 9,
  'start minute': 0,
  'end hour': 17,
  'end minute': 0,
  timezone: 'America/New_York',
};

describe('parseAuthRequestPolicy refuses what only a service policy may hold', () => {
  it.each([
    [
      'a time fence',
      {
        minimum_requirements: [],
        factors: [{ factor: 'timefence', ...forced, attributes: { 'time fences': [timeFence] } }],
      },
      'policy.factors[0].factor: "timefence" is not allowed in an authorization request, set time fences in the service policy',
    ],
    [
      'a time fence with no windows, which the legacy parser alone would drop',
      {
        minimum_requirements: [],
        factors: [
          { factor: 'device integrity', ...forced, attributes: { 'factor enabled': 0 } },
          { factor: 'timefence', ...forced, attributes: { 'time fences': [] } },
        ],
      },
      'policy.factors[1].factor: "timefence" is not allowed in an authorization request, set time fences in the service policy',
    ],
    [
      'METHOD_AMOUNT',
      { type: 'METHOD_AMOUNT', amount: 2, fences: [] },
      'policy.type: "METHOD_AMOUNT" is a service policy type, an authorization request takes only the legacy minimum_requirements/factors form',
    ],
    [
      'FACTORS',
      { type: 'FACTORS', factors: ['KNOWLEDGE'] },
      'policy.type: "FACTORS" is a service policy type, an authorization request takes only the legacy minimum_requirements/factors form',
    ],
    [
      'COND_GEO',
      {
        type: 'COND_GEO',
        fences: [{ type: 'TERRITORY', country: 'US' }],
        inside: { type: 'METHOD_AMOUNT', amount: 1 },
        outside: { type: 'METHOD_AMOUNT', amount: 2 },
      },
      'policy.type: "COND_GEO" is a service policy type, an authorization request takes only the legacy minimum_requirements/factors form',
    ],
    [
      'an unknown type',
      { type: 'STRICT', minimum_requirements: [], factors: [] },
      'policy.type: unknown policy type "STRICT", an authorization request takes only the legacy minimum_requirements/factors form',
    ],
    [
      'a numeric type',
      { type: 1, minimum_requirements: [], factors: [] },
      'policy.type: must be a string, an authorization request takes only the legacy minimum_requirements/factors form',
    ],
    ['PY flat LegacyPolicy keys', { type: 'LEGACY', amount: 2 }, 'policy.amount: unknown key'],
    [
      'fences on a legacy policy',
      { minimum_requirements: [], factors: [], fences: [] },
      'policy.fences: unknown key',
    ],
    ['a missing factors list', { minimum_requirements: [] }, 'policy.factors: required'],
    [
      'two requirement items',
      {
        minimum_requirements: [
          { requirement: 'authenticated', any: 1 },
          { requirement: 'authenticated', any: 2 },
        ],
        factors: [],
      },
      'policy.minimum_requirements: must hold at most one item',
    ],
    [
      'any combined with a type',
      {
        minimum_requirements: [{ requirement: 'authenticated', any: 1, knowledge: 1 }],
        factors: [],
      },
      'policy.minimum_requirements[0].any: cannot be combined with knowledge, inherence or possession requirements',
    ],
    ['a policy that is not an object', 'strict', 'policy: must be an object'],
  ])('%s', (_, body, reason) => {
    expect(reasonFor(body)).toBe(reason);
  });
});
