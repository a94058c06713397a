import { describe, expect, it } from 'vitest';
import { javaProblems, pythonProblems } from '#test/unit/shared/domain/policy/sdk-readers';

// The property tests trust these stand-ins; each known way to break an SDK must register as a problem.

const legacy = { type: 'LEGACY', minimum_requirements: [], factors: [] };
const methodAmount = {
  type: 'METHOD_AMOUNT',
  amount: 2,
  fences: [],
  deny_rooted_jailbroken: false,
  deny_emulator_simulator: false,
};
const conditional = {
  type: 'COND_GEO',
  fences: [{ type: 'TERRITORY', country: 'US', administrative_area: null, postal_code: null }],
  inside: { type: 'METHOD_AMOUNT', amount: 1 },
  outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
  deny_rooted_jailbroken: false,
  deny_emulator_simulator: false,
};
const timeFence = {
  name: 'a',
  days: ['Monday'],
  'start hour': 0,
  'start minute': 0,
  'end hour': 1,
  'end minute': 0,
  timezone: 'UTC',
};

describe('the stand-in readers', () => {
  it.each([
    ['blank LEGACY', legacy],
    ['METHOD_AMOUNT', methodAmount],
    ['COND_GEO', conditional],
  ])('read a good %s', (_, policy) => {
    expect(javaProblems(policy)).toEqual([]);
    expect(pythonProblems(policy)).toEqual([]);
  });

  it.each([
    ['an extra top-level key', { ...legacy, extra: 1 }],
    [
      '`all` in a requirement',
      { ...legacy, minimum_requirements: [{ requirement: 'authenticated', all: 1 }] },
    ],
    ['an unknown requirement', { ...legacy, minimum_requirements: [{ requirement: 'required' }] }],
    [
      'a location name of null',
      {
        ...legacy,
        factors: [
          {
            factor: 'geofence',
            attributes: { locations: [{ name: null, latitude: 1, longitude: 1, radius: 1 }] },
          },
        ],
      },
    ],
    [
      'a lower-case day',
      {
        ...legacy,
        factors: [
          { factor: 'timefence', attributes: { 'time fences': [{ ...timeFence, days: ['monday'] }] } },
        ],
      },
    ],
    ['METHOD_AMOUNT without amount', { ...methodAmount, amount: undefined }],
    [
      'a nested policy with fences',
      { ...conditional, inside: { ...conditional.inside, fences: conditional.fences } },
    ],
    ['a nested COND_GEO', { ...conditional, inside: conditional }],
    ['an unknown fence type', { ...methodAmount, fences: [{ type: 'POLYGON' }] }],
    ['an unknown policy type', { type: 'OTHER' }],
  ])('JV fails on %s', (_, policy) => {
    expect(javaProblems(policy)).not.toEqual([]);
  });

  it.each([
    ['LEGACY without factors', { type: 'LEGACY', minimum_requirements: [] }],
    ['LEGACY without minimum_requirements', { type: 'LEGACY', factors: [] }],
    ['METHOD_AMOUNT without amount', { ...methodAmount, amount: undefined }],
    ['FACTORS without factors', { type: 'FACTORS', factors: [] }],
    ['lower-case FACTORS', { type: 'FACTORS', factors: ['knowledge'] }],
    ['FACTORS out of order', { type: 'FACTORS', factors: ['POSSESSION', 'INHERENCE'] }],
    ['COND_GEO without fences', { ...conditional, fences: [] }],
    ['COND_GEO with an empty inside', { ...conditional, inside: {} }],
    ['a nested LEGACY', { ...conditional, outside: legacy }],
    [
      'a nested policy with fences',
      { ...conditional, inside: { ...conditional.inside, fences: conditional.fences } },
    ],
    ['a fence name of null', { ...methodAmount, fences: [{ ...conditional.fences[0], name: null }] }],
    [
      'a GEO_CIRCLE without radius',
      { ...methodAmount, fences: [{ type: 'GEO_CIRCLE', latitude: 1, longitude: 1 }] },
    ],
    [
      'two time fences named alike',
      {
        ...legacy,
        factors: [
          { factor: 'timefence', attributes: { 'time fences': [timeFence, { ...timeFence, name: 'A' }] } },
        ],
      },
    ],
    [
      'an hour of 24',
      {
        ...legacy,
        factors: [{ factor: 'timefence', attributes: { 'time fences': [{ ...timeFence, 'end hour': 24 }] } }],
      },
    ],
  ])('PY fails on %s', (_, policy) => {
    expect(pythonProblems(policy)).not.toEqual([]);
  });
});
