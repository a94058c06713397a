import { describe, expect, it } from 'vitest';
import { InvalidPolicyError, parseServicePolicy } from '#shared/domain/policy/service-policy';

function reasonFor(input: unknown): string {
  try {
    parseServicePolicy(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPolicyError);
    return (error as InvalidPolicyError).reason;
  }
  throw new Error('the policy was accepted');
}

const legacy = (factors: unknown[], minimumRequirements: unknown[] = []) => ({
  type: 'LEGACY',
  minimum_requirements: minimumRequirements,
  factors,
});
const requirement = (fields: Record<string, unknown>) =>
  legacy(
    [],
    [{ requirement: 'authenticated', any: 0, knowledge: 0, inherence: 0, possession: 0, ...fields }],
  );
const location = { name: 'Home', latitude: 12.3, longitude: 23.4, radius: 500 };
const geofence = (...locations: unknown[]) => legacy([{ factor: 'geofence', attributes: { locations } }]);
const timeFence = {
  name: 'Week Days',
  days: ['Monday', 'Friday'],
  'start hour': 0,
  'start minute': 0,
  'end hour': 23,
  'end minute': 59,
  timezone: 'America/New_York',
};
const timefence = (...fences: unknown[]) =>
  legacy([{ factor: 'timefence', attributes: { 'time fences': fences } }]);
const flat = (fields: Record<string, unknown>) => ({ type: 'LEGACY', amount: 0, ...fields });
const territory = {
  type: 'TERRITORY',
  name: 'Nevada',
  country: 'US',
  administrative_area: 'US-NV',
  postal_code: null,
};
const circle = { type: 'GEO_CIRCLE', name: 'Office', latitude: 36.1, longitude: -115.1, radius: 200 };
const methodAmount = (fields: Record<string, unknown>) => ({ type: 'METHOD_AMOUNT', amount: 2, ...fields });
const conditional = (fields: Record<string, unknown>) => ({
  type: 'COND_GEO',
  fences: [circle],
  inside: { type: 'METHOD_AMOUNT', amount: 2 },
  outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
  ...fields,
});

describe('refused policies name the offending field', () => {
  it.each([
    // The body and its type
    ['a policy that is not an object', [], 'policy: must be an object'],
    ['a null policy', null, 'policy: must be an object'],
    ['a Date for a policy', new Date(0), 'policy: must be an object'],
    ['a Map for a policy', new Map([['type', 'LEGACY']]), 'policy: must be an object'],
    [
      'a class instance for a fence',
      { type: 'METHOD_AMOUNT', amount: 1, fences: [new (class Fence {})()] },
      'policy.fences[0]: must be an object',
    ],
    [
      'an unknown type',
      { type: 'GEO_ONLY' },
      'policy.type: unknown policy type "GEO_ONLY", must be LEGACY, METHOD_AMOUNT, FACTORS or COND_GEO',
    ],
    [
      'a type that is not a string',
      { type: 3 },
      'policy.type: must be a string, must be LEGACY, METHOD_AMOUNT, FACTORS or COND_GEO',
    ],
    [
      'a lower-case type',
      { type: 'legacy' },
      'policy.type: unknown policy type "legacy", must be LEGACY, METHOD_AMOUNT, FACTORS or COND_GEO',
    ],
    ['an unknown top-level key', { ...legacy([]), colour: 'red' }, 'policy.colour: unknown key'],
    [
      'an inherited-looking key',
      JSON.parse('{"__proto__": {}, "factors": [], "minimum_requirements": []}'),
      'policy.__proto__: unknown key',
    ],
    [
      'a flat key without type LEGACY',
      { amount: 2, minimum_requirements: [], factors: [] },
      'policy.amount: unknown key',
    ],

    // LEGACY shape
    [
      'LEGACY without minimum_requirements',
      { type: 'LEGACY', factors: [] },
      'policy.minimum_requirements: required',
    ],
    ['untyped without factors', { minimum_requirements: [] }, 'policy.factors: required'],
    [
      'flat keys mixed with the factor form',
      { type: 'LEGACY', amount: 1, factors: [], minimum_requirements: [] },
      'policy.minimum_requirements: cannot be combined with the flat LegacyPolicy key "amount"',
    ],
    ['factors that are not a list', legacy({} as unknown as unknown[]), 'policy.factors: must be an array'],

    // minimum_requirements
    [
      'two requirement items',
      legacy([], [{ requirement: 'authenticated' }, { requirement: 'authenticated' }]),
      'policy.minimum_requirements: must hold at most one item',
    ],
    [
      'an unknown requirement',
      requirement({ requirement: 'required' }),
      'policy.minimum_requirements[0].requirement: must be one of "authenticated", "enabled"',
    ],
    [
      'a requirement without its requirement key',
      legacy([], [{ any: 1 }]),
      'policy.minimum_requirements[0].requirement: must be one of "authenticated", "enabled"',
    ],
    [
      'an amount out of range',
      requirement({ any: 4 }),
      'policy.minimum_requirements[0].any: 4 is out of range, must be from 0 to 3',
    ],
    [
      'a negative amount',
      requirement({ any: -1 }),
      'policy.minimum_requirements[0].any: -1 is out of range, must be from 0 to 3',
    ],
    [
      'a fractional amount',
      requirement({ any: 1.5 }),
      'policy.minimum_requirements[0].any: must be an integer from 0 to 3',
    ],
    [
      'an amount given as text',
      requirement({ any: '2' }),
      'policy.minimum_requirements[0].any: must be an integer from 0 to 3',
    ],
    [
      '`all` out of range',
      requirement({ any: null, all: 7 }),
      'policy.minimum_requirements[0].all: 7 is out of range, must be from 0 to 3',
    ],
    [
      '`all` disagreeing with `any`',
      requirement({ any: 1, all: 2 }),
      'policy.minimum_requirements[0].all: disagrees with any (1)',
    ],
    [
      '`any` combined with a factor type',
      requirement({ any: 2, knowledge: 1 }),
      'policy.minimum_requirements[0].any: cannot be combined with knowledge, inherence or possession requirements',
    ],
    [
      '`all` combined with a factor type',
      requirement({ any: null, all: 1, possession: 1 }),
      'policy.minimum_requirements[0].all: cannot be combined with knowledge, inherence or possession requirements',
    ],
    [
      'a factor type flag of 2',
      requirement({ inherence: 2 }),
      'policy.minimum_requirements[0].inherence: must be 0 or 1',
    ],
    [
      'a factor type flag given as true',
      requirement({ knowledge: true }),
      'policy.minimum_requirements[0].knowledge: must be 0 or 1',
    ],
    [
      '"enabled" with demands',
      requirement({ requirement: 'enabled', possession: 1 }),
      'policy.minimum_requirements[0].requirement: "enabled" demands no factors, use "authenticated" to require them',
    ],
    [
      'an unknown requirement key',
      requirement({ some: 1 }),
      'policy.minimum_requirements[0].some: unknown key',
    ],

    // factors
    [
      'an unknown factor',
      legacy([{ factor: 'pin code', attributes: {} }]),
      'policy.factors[0].factor: unknown factor "pin code", must be one of "geofence", "timefence", "device integrity"',
    ],
    [
      'a factor without its name',
      legacy([{ attributes: {} }]),
      'policy.factors[0].factor: required, must be one of "geofence", "timefence", "device integrity"',
    ],
    [
      'the same factor twice',
      legacy([
        { factor: 'device integrity', attributes: { 'factor enabled': 1 } },
        { factor: 'device integrity', attributes: { 'factor enabled': 0 } },
      ]),
      'policy.factors[1].factor: duplicate factor "device integrity"',
    ],
    [
      'a factor without attributes',
      legacy([{ factor: 'geofence' }]),
      'policy.factors[0].attributes: required',
    ],
    [
      'an unknown factor requirement',
      legacy([{ factor: 'device integrity', requirement: 'required', attributes: { 'factor enabled': 1 } }]),
      'policy.factors[0].requirement: must be one of "forced requirement", "allowed"',
    ],
    [
      'a negative priority',
      legacy([{ factor: 'device integrity', priority: -1, attributes: { 'factor enabled': 1 } }]),
      `policy.factors[0].priority: -1 is out of range, must be from 0 to ${Number.MAX_SAFE_INTEGER}`,
    ],
    [
      'a quickfail that is not a boolean',
      legacy([{ factor: 'device integrity', quickfail: 0, attributes: { 'factor enabled': 1 } }]),
      'policy.factors[0].quickfail: must be true or false',
    ],
    [
      'an unknown factor key',
      legacy([{ factor: 'device integrity', weight: 1, attributes: {} }]),
      'policy.factors[0].weight: unknown key',
    ],
    [
      'device integrity without "factor enabled"',
      legacy([{ factor: 'device integrity', attributes: {} }]),
      'policy.factors[0].attributes["factor enabled"]: required',
    ],
    [
      'device integrity enabled with 2',
      legacy([{ factor: 'device integrity', attributes: { 'factor enabled': 2 } }]),
      'policy.factors[0].attributes["factor enabled"]: must be 0 or 1',
    ],
    [
      'an unknown attribute',
      legacy([{ factor: 'device integrity', attributes: { 'factor enabled': 1, locations: [] } }]),
      'policy.factors[0].attributes.locations: unknown key',
    ],

    // geofence locations
    [
      'a geofence without locations',
      legacy([{ factor: 'geofence', attributes: {} }]),
      'policy.factors[0].attributes.locations: required',
    ],
    [
      'a location without radius',
      geofence({ name: 'Home', latitude: 12.3, longitude: 23.4 }),
      'policy.factors[0].attributes.locations[0].radius: must be a number greater than 0',
    ],
    [
      'a location with radius 0',
      geofence(location, { ...location, name: 'Work', radius: 0 }),
      'policy.factors[0].attributes.locations[1].radius: must be a number greater than 0',
    ],
    [
      'a location with a negative radius',
      geofence({ ...location, radius: -5 }),
      'policy.factors[0].attributes.locations[0].radius: must be a number greater than 0',
    ],
    [
      'a latitude beyond the pole',
      geofence({ ...location, latitude: 90.5 }),
      'policy.factors[0].attributes.locations[0].latitude: must be a number from -90 to 90',
    ],
    [
      'a longitude beyond the antimeridian',
      geofence({ ...location, longitude: -181 }),
      'policy.factors[0].attributes.locations[0].longitude: must be a number from -180 to 180',
    ],
    [
      'a location without latitude',
      geofence({ name: 'Home', longitude: 23.4, radius: 5 }),
      'policy.factors[0].attributes.locations[0].latitude: must be a number from -90 to 90',
    ],
    [
      'an empty location name',
      geofence({ ...location, name: '' }),
      'policy.factors[0].attributes.locations[0].name: must be a non-empty string or null',
    ],
    [
      'two locations named alike',
      geofence(location, { ...location, name: 'HOME' }),
      'policy.factors[0].attributes.locations[1].name: duplicate name "HOME" (names must differ ignoring case)',
    ],
    [
      'an unknown location key',
      geofence({ ...location, altitude: 3 }),
      'policy.factors[0].attributes.locations[0].altitude: unknown key',
    ],

    // time fences
    [
      'an unknown day name',
      timefence({ ...timeFence, days: ['Monday', 'Funday'] }),
      'policy.factors[0].attributes["time fences"][0].days[1]: unknown day "Funday", must be one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday',
    ],
    [
      'a lower-case day name',
      timefence({ ...timeFence, days: ['monday'] }),
      'policy.factors[0].attributes["time fences"][0].days[0]: unknown day "monday", must be one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday',
    ],
    [
      'a day twice',
      timefence({ ...timeFence, days: ['Monday', 'Monday'] }),
      'policy.factors[0].attributes["time fences"][0].days[1]: duplicate day "Monday"',
    ],
    [
      'no days',
      timefence({ ...timeFence, days: [] }),
      'policy.factors[0].attributes["time fences"][0].days: must name at least one day',
    ],
    [
      'an unknown time zone',
      timefence({ ...timeFence, timezone: 'Mars/Olympus_Mons' }),
      'policy.factors[0].attributes["time fences"][0].timezone: unknown time zone "Mars/Olympus_Mons", must be an IANA time zone name',
    ],
    [
      'a UTC offset instead of a zone',
      timefence({ ...timeFence, timezone: '+01:00' }),
      'policy.factors[0].attributes["time fences"][0].timezone: must be an IANA time zone name such as "America/New_York"',
    ],
    [
      'an hour of 24',
      timefence({ ...timeFence, 'end hour': 24 }),
      'policy.factors[0].attributes["time fences"][0]["end hour"]: 24 is out of range, must be from 0 to 23',
    ],
    [
      'a minute of 60',
      timefence({ ...timeFence, 'start minute': 60 }),
      'policy.factors[0].attributes["time fences"][0]["start minute"]: 60 is out of range, must be from 0 to 59',
    ],
    [
      'a time fence without a name',
      timefence({ ...timeFence, name: undefined }),
      'policy.factors[0].attributes["time fences"][0].name: must be a non-empty string',
    ],
    [
      'two time fences named alike',
      timefence(timeFence, { ...timeFence, name: 'week days' }),
      'policy.factors[0].attributes["time fences"][1].name: duplicate name "week days" (names must differ ignoring case)',
    ],
    [
      'an unknown time fence key',
      timefence({ ...timeFence, 'end second': 0 }),
      'policy.factors[0].attributes["time fences"][0]["end second"]: unknown key',
    ],

    // PY flat LegacyPolicy
    [
      'a flat amount out of range',
      flat({ amount: 4 }),
      'policy.amount: 4 is out of range, must be from 0 to 3',
    ],
    [
      'a flat amount with a factor type',
      flat({ amount: 1, inherence_required: true }),
      'policy.amount: cannot be combined with knowledge, inherence or possession requirements',
    ],
    [
      'a flat flag that is not a boolean',
      flat({ knowledge_required: 1 }),
      'policy.knowledge_required: must be true or false',
    ],
    [
      'a TERRITORY fence in a flat LEGACY policy',
      flat({ fences: [territory] }),
      'policy.fences[0].type: a LEGACY policy takes only GEO_CIRCLE fences',
    ],
    [
      'a flat fence without radius',
      flat({ fences: [{ type: 'GEO_CIRCLE', name: null, latitude: 1, longitude: 2 }] }),
      'policy.fences[0].radius: must be a number greater than 0',
    ],
    [
      'flat fences named alike',
      flat({ fences: [circle, { ...circle, name: 'OFFICE' }] }),
      'policy.fences[1].name: duplicate name "OFFICE" (names must differ ignoring case)',
    ],
    [
      'a flat time restriction with a bad day',
      flat({ time_restrictions: [{ ...timeFence, days: ['Someday'] }] }),
      'policy.time_restrictions[0].days[0]: unknown day "Someday", must be one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday',
    ],
    [
      'deny_emulator_simulator on a flat LEGACY policy',
      flat({ deny_emulator_simulator: true }),
      'policy.deny_emulator_simulator: unknown key',
    ],

    // METHOD_AMOUNT and FACTORS
    ['METHOD_AMOUNT without amount', { type: 'METHOD_AMOUNT' }, 'policy.amount: required'],
    [
      'a METHOD_AMOUNT amount out of range',
      methodAmount({ amount: 6 }),
      'policy.amount: 6 is out of range, must be from 0 to 5',
    ],
    [
      'a null METHOD_AMOUNT amount',
      methodAmount({ amount: null }),
      'policy.amount: must be an integer from 0 to 5',
    ],
    [
      'a device flag that is not a boolean',
      methodAmount({ deny_rooted_jailbroken: 'yes' }),
      'policy.deny_rooted_jailbroken: must be true or false',
    ],
    ['factors on METHOD_AMOUNT', methodAmount({ factors: ['KNOWLEDGE'] }), 'policy.factors: unknown key'],
    ['FACTORS without factors', { type: 'FACTORS' }, 'policy.factors: required'],
    [
      'FACTORS with none',
      { type: 'FACTORS', factors: [] },
      'policy.factors: must name at least one factor type',
    ],
    [
      'an unknown factor type',
      { type: 'FACTORS', factors: ['KNOWLEDGE', 'LOCATION'] },
      'policy.factors[1]: unknown factor type "LOCATION", must be one of INHERENCE, KNOWLEDGE, POSSESSION',
    ],
    [
      'a factor type twice',
      { type: 'FACTORS', factors: ['KNOWLEDGE', 'knowledge'] },
      'policy.factors[1]: duplicate factor type "KNOWLEDGE"',
    ],
    [
      'amount on FACTORS',
      { type: 'FACTORS', factors: ['KNOWLEDGE'], amount: 1 },
      'policy.amount: unknown key',
    ],

    // fences
    ['fences that are not a list', methodAmount({ fences: {} }), 'policy.fences: must be an array'],
    [
      'a fence without type',
      methodAmount({ fences: [{ name: 'x', latitude: 1, longitude: 1, radius: 1 }] }),
      'policy.fences[0].type: required, must be "GEO_CIRCLE" or "TERRITORY"',
    ],
    [
      'an unknown fence type',
      methodAmount({ fences: [{ type: 'POLYGON' }] }),
      'policy.fences[0].type: unknown fence type "POLYGON", must be "GEO_CIRCLE" or "TERRITORY"',
    ],
    [
      'a GEO_CIRCLE without radius',
      methodAmount({ fences: [{ type: 'GEO_CIRCLE', latitude: 1, longitude: 2 }] }),
      'policy.fences[0].radius: must be a number greater than 0',
    ],
    [
      'a GEO_CIRCLE with territory keys',
      methodAmount({ fences: [{ ...circle, country: 'US' }] }),
      'policy.fences[0].country: unknown key',
    ],
    [
      'a lower-case country',
      methodAmount({ fences: [{ ...territory, country: 'us', administrative_area: null }] }),
      'policy.fences[0].country: must be an upper-case ISO 3166-1 alpha-2 code such as "US"',
    ],
    [
      'a three-letter country',
      methodAmount({ fences: [{ ...territory, country: 'USA', administrative_area: null }] }),
      'policy.fences[0].country: must be an upper-case ISO 3166-1 alpha-2 code such as "US"',
    ],
    [
      'a bad administrative area',
      methodAmount({ fences: [{ ...territory, administrative_area: 'Nevada' }] }),
      'policy.fences[0].administrative_area: must be null or an upper-case ISO 3166-2 code such as "US-NV"',
    ],
    [
      'an administrative area of another country',
      methodAmount({ fences: [{ ...territory, administrative_area: 'MX-BCN' }] }),
      'policy.fences[0].administrative_area: "MX-BCN" is not a subdivision of "US"',
    ],
    [
      'a postal code that is a number',
      methodAmount({ fences: [{ ...territory, postal_code: 89120 }] }),
      'policy.fences[0].postal_code: must be a string or null',
    ],
    [
      'an empty fence name',
      methodAmount({ fences: [{ ...circle, name: '' }] }),
      'policy.fences[0].name: must be a non-empty string or null',
    ],

    // COND_GEO
    ['COND_GEO without fences', conditional({ fences: [] }), 'policy.fences: must hold at least one fence'],
    [
      'COND_GEO with null fences',
      conditional({ fences: null }),
      'policy.fences: must hold at least one fence',
    ],
    ['COND_GEO without inside', conditional({ inside: undefined }), 'policy.inside: required'],
    ['COND_GEO with a null outside', conditional({ outside: null }), 'policy.outside: must be an object'],
    [
      'a nested COND_GEO',
      conditional({ inside: conditional({}) }),
      'policy.inside.type: "COND_GEO" cannot be nested, an inside or outside policy must be METHOD_AMOUNT or FACTORS',
    ],
    [
      'a nested LEGACY',
      conditional({ outside: { type: 'LEGACY', minimum_requirements: [], factors: [] } }),
      'policy.outside.type: "LEGACY" cannot be nested, an inside or outside policy must be METHOD_AMOUNT or FACTORS',
    ],
    [
      'a nested policy without type',
      conditional({ outside: { amount: 2 } }),
      'policy.outside.type: required, an inside or outside policy must be METHOD_AMOUNT or FACTORS',
    ],
    [
      'fences on a nested policy',
      conditional({ inside: { type: 'METHOD_AMOUNT', amount: 1, fences: [circle] } }),
      'policy.inside.fences: must be empty in an inside or outside policy, the fences belong to COND_GEO',
    ],
    [
      'a device flag on a nested policy',
      conditional({ outside: { type: 'FACTORS', factors: ['KNOWLEDGE'], deny_emulator_simulator: true } }),
      'policy.outside.deny_emulator_simulator: cannot be set in an inside or outside policy, set it on the COND_GEO policy',
    ],
    [
      'a nested amount out of range',
      conditional({ inside: { type: 'METHOD_AMOUNT', amount: 9 } }),
      'policy.inside.amount: 9 is out of range, must be from 0 to 5',
    ],
    [
      'a nested policy with the other kind’s key',
      conditional({ inside: { type: 'METHOD_AMOUNT', amount: 1, factors: ['KNOWLEDGE'] } }),
      'policy.inside.factors: unknown key',
    ],
    ['amount on COND_GEO', conditional({ amount: 1 }), 'policy.amount: unknown key'],
  ])('%s', (_, input, reason) => {
    expect(reasonFor(input)).toBe(reason);
  });

  it('reads only own keys, so a polluted prototype cannot add to a policy', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.deny_rooted_jailbroken = 'yes';
    try {
      expect(parseServicePolicy({ type: 'METHOD_AMOUNT', amount: 1 })).toMatchObject({
        denyRootedJailbroken: false,
      });
    } finally {
      delete prototype.deny_rooted_jailbroken;
    }
  });

  it('cuts long caller text short in the reason', () => {
    expect(reasonFor({ type: 'X'.repeat(500) })).toBe(
      `policy.type: unknown policy type "${'X'.repeat(40)}…", must be LEGACY, METHOD_AMOUNT, FACTORS or COND_GEO`,
    );
  });

  it('is an Error whose message is the reason', () => {
    const error = new InvalidPolicyError('policy.type: required');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('InvalidPolicyError');
    expect(error.message).toBe('policy.type: required');
  });
});
