import fc from 'fast-check';

/**
 * Generators of policy bodies in every encoding the service accepts, shaped like the SDK code that produces them:
 * PY `ServiceSecurityPolicy` (untyped, quickfail, device integrity always present), JV `LegacyPolicy` through
 * `getTransportPolicyFromDomainPolicy` or the older `AuthPolicy` (typed, nulls in the requirement, no quickfail),
 * PY flat `LegacyPolicy.__iter__`, and the advanced kinds as PY `to_dict` (null-valued keys, `fences: []` inside) and
 * JV (NON_NULL) send them.
 */

type Json = Record<string, unknown>;

const dayNames = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const zones = [
  'America/New_York',
  'America/Los_Angeles',
  'UTC',
  'Europe/London',
  'Asia/Kolkata',
  'Etc/GMT+5',
];
const countries = ['US', 'CA', 'MX', 'GB', 'FR'];

const name = fc.string({ minLength: 1, maxLength: 12 });
const latitude = fc.double({ min: -90, max: 90, noNaN: true });
const longitude = fc.double({ min: -180, max: 180, noNaN: true });
const radius = fc.double({ min: 0.5, max: 1e6, noNaN: true });

/** Names compared ignoring case, as PY compares them. */
function uniqueNamed<T extends { name?: unknown }>(item: fc.Arbitrary<T>, maxLength = 3): fc.Arbitrary<T[]> {
  return fc.uniqueArray(item, {
    maxLength,
    selector: (value) => (typeof value.name === 'string' ? value.name.toLowerCase() : Symbol('unnamed')),
  });
}

function shuffled<T>(items: T[]): fc.Arbitrary<T[]> {
  return fc.shuffledSubarray(items, { minLength: items.length, maxLength: items.length });
}

const timeFence = fc.record({
  name,
  days: fc.shuffledSubarray(dayNames, { minLength: 1 }),
  'start hour': fc.integer({ min: 0, max: 23 }),
  'start minute': fc.integer({ min: 0, max: 59 }),
  'end hour': fc.integer({ min: 0, max: 23 }),
  'end minute': fc.integer({ min: 0, max: 59 }),
  timezone: fc.constantFrom(...zones),
});

/** `{any, knowledge, inherence, possession}` never combining `any` with types (PY refuses that). */
export const demand = fc.oneof(
  fc.record({
    any: fc.integer({ min: 0, max: 3 }),
    knowledge: fc.constant(0),
    inherence: fc.constant(0),
    possession: fc.constant(0),
  }),
  fc.record({
    any: fc.constant(0),
    knowledge: fc.integer({ min: 0, max: 1 }),
    inherence: fc.integer({ min: 0, max: 1 }),
    possession: fc.integer({ min: 0, max: 1 }),
  }),
);

export const demandsSomething = (d: {
  any: number;
  knowledge: number;
  inherence: number;
  possession: number;
}) => d.any > 0 || d.knowledge + d.inherence + d.possession > 0;

/** PY ServiceSecurityPolicy: set_minimum_requirements, require_jailbreak_protection, add_geofence, add_timefence. */
export const pythonServiceSecurityPolicy: fc.Arbitrary<Json> = fc
  .record({
    demand,
    jailbreak: fc.boolean(),
    locations: uniqueNamed(fc.record({ radius, latitude, longitude, name })),
    timeFences: uniqueNamed(timeFence),
  })
  .map(({ demand: d, jailbreak, locations, timeFences }) => {
    const factor = (kind: string, attributes: Json) => ({
      factor: kind,
      requirement: 'forced requirement',
      quickfail: false,
      priority: 1,
      attributes,
    });
    const factors: Json[] = [factor('device integrity', { 'factor enabled': jailbreak ? 1 : 0 })];
    if (locations.length > 0) factors.push(factor('geofence', { locations }));
    if (timeFences.length > 0) factors.push(factor('timefence', { 'time fences': timeFences }));
    return {
      factors,
      minimum_requirements: demandsSomething(d) ? [{ requirement: 'authenticated', ...d }] : [],
    };
  });

const javaLocation = fc
  .record({ name: fc.option(name, { nil: null }), latitude, longitude, radius })
  .map(
    ({
      name: locationName,
      ...rest
    }): { name?: string; latitude: number; longitude: number; radius: number } =>
      locationName === null ? rest : { name: locationName, ...rest },
  );

/** JV LegacyPolicy → transport Policy, or the older AuthPolicy/ServicePolicy with nulls in the requirement. */
export const javaLegacyPolicy: fc.Arbitrary<Json> = fc
  .record({
    demand,
    nulls: fc.boolean(),
    deviceIntegrity: fc.boolean(),
    locations: uniqueNamed(javaLocation),
    timeFences: uniqueNamed(timeFence),
  })
  .chain(({ demand: d, nulls, deviceIntegrity, locations, timeFences }) => {
    const factor = (kind: string, attributes: Json) => ({
      factor: kind,
      requirement: 'forced requirement',
      priority: 1,
      attributes,
    });
    const factors: Json[] = [];
    if (locations.length > 0) factors.push(factor('geofence', { locations }));
    if (timeFences.length > 0) factors.push(factor('timefence', { 'time fences': timeFences }));
    if (deviceIntegrity) factors.push(factor('device integrity', { 'factor enabled': 1 }));
    const orNull = (value: number) => (nulls && value === 0 ? null : value);
    const requirement = {
      requirement: 'authenticated',
      any: orNull(d.any),
      knowledge: orNull(d.knowledge),
      inherence: orNull(d.inherence),
      possession: orNull(d.possession),
    };
    return shuffled(factors).map((ordered) => ({
      type: 'LEGACY',
      factors: ordered,
      minimum_requirements: demandsSomething(d) ? [requirement] : [],
    }));
  });

const pythonGeoCircle = fc.record({
  type: fc.constant('GEO_CIRCLE'),
  name: fc.option(name, { nil: null }),
  latitude,
  longitude,
  radius,
});

/** PY LegacyPolicy.__iter__ (the flat shape). */
export const pythonFlatLegacyPolicy: fc.Arbitrary<Json> = fc
  .record({
    demand,
    deny_rooted_jailbroken: fc.boolean(),
    fences: uniqueNamed(pythonGeoCircle),
    time_restrictions: uniqueNamed(timeFence),
  })
  .map(({ demand: d, ...rest }) => ({
    type: 'LEGACY',
    amount: d.any,
    inherence_required: d.inherence === 1,
    knowledge_required: d.knowledge === 1,
    possession_required: d.possession === 1,
    ...rest,
  }));

const territory = fc.constantFrom(...countries).chain((country) =>
  fc.record({
    type: fc.constant('TERRITORY'),
    name: fc.option(name, { nil: null }),
    administrative_area: fc.option(
      fc
        .string({ unit: fc.constantFrom(...'ABCNVXYZ'), minLength: 2, maxLength: 3 })
        .map((area) => `${country}-${area}`),
      { nil: null },
    ),
    country: fc.constant(country),
    postal_code: fc.option(
      fc.string({ unit: fc.constantFrom(...'0123456789AB -'), minLength: 1, maxLength: 8 }),
      {
        nil: null,
      },
    ),
  }),
);

/** PY to_dict sends every key, null when unset. */
const pythonFence = fc.oneof(pythonGeoCircle, territory);

/** JV serialises fences NON_NULL. */
const javaFence = pythonFence.map((fence) =>
  Object.fromEntries(Object.entries(fence).filter(([, value]) => value !== null)),
);

const amount = fc.integer({ min: 0, max: 5 });
const factorSet = fc.subarray(['INHERENCE', 'KNOWLEDGE', 'POSSESSION'], { minLength: 1 }).chain((factors) =>
  fc.constantFrom(
    factors,
    factors.map((factor) => factor.toLowerCase()),
  ),
);

function advanced(fence: fc.Arbitrary<Json>, nestedFences: boolean, sendFlags: fc.Arbitrary<boolean>) {
  const flags = fc.record({ deny_rooted_jailbroken: fc.boolean(), deny_emulator_simulator: fc.boolean() });
  const fences = fc.array(fence, { maxLength: 3 });
  const methodAmount = fc
    .record({ amount, fences, flags, send: sendFlags })
    .map(({ flags: f, send, ...rest }) => ({ type: 'METHOD_AMOUNT', ...rest, ...(send ? f : {}) }));
  const factors = fc
    .record({ factors: factorSet, fences, flags, send: sendFlags })
    .map(({ flags: f, send, ...rest }) => ({ type: 'FACTORS', ...rest, ...(send ? f : {}) }));
  const inner = fc.oneof(
    amount.map((value) => ({ type: 'METHOD_AMOUNT', amount: value })),
    factorSet.map((value) => ({ type: 'FACTORS', factors: value })),
  );
  const nested = inner.map((policy) => (nestedFences ? { ...policy, fences: [] } : policy));
  const conditional = fc
    .record({
      fences: fc.array(fence, { minLength: 1, maxLength: 3 }),
      inside: nested,
      outside: nested,
      flags,
    })
    .map(({ flags: f, ...rest }) => ({ type: 'COND_GEO', ...rest, ...f }));
  return fc.oneof(methodAmount, factors, conditional);
}

/** METHOD_AMOUNT, FACTORS and COND_GEO as PY's to_dict sends them. */
export const pythonAdvancedPolicy: fc.Arbitrary<Json> = advanced(pythonFence, true, fc.constant(true));

/** The same as JV sends them: nulls omitted, nested policies without fences, flags sometimes absent. */
export const javaAdvancedPolicy: fc.Arbitrary<Json> = advanced(javaFence, false, fc.boolean());

/** Any body the service must accept. */
export const acceptedPolicy: fc.Arbitrary<Json> = fc.oneof(
  pythonServiceSecurityPolicy,
  javaLegacyPolicy,
  pythonFlatLegacyPolicy,
  pythonAdvancedPolicy,
  javaAdvancedPolicy,
);

/** Replaces one value somewhere in `value` (or the whole of it) with `replacement`. */
function replaceAt(value: unknown, choice: number, replacement: unknown): unknown {
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (Array.isArray(node)) node.forEach((child, index) => walk(child, [...path, index]));
    else if (typeof node === 'object' && node !== null) {
      for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
    }
  };
  walk(value, []);
  const target = paths[choice % paths.length] ?? [];
  if (target.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const step of target.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[target[target.length - 1] as string | number] = replacement;
  return copy;
}

/** An accepted body with one value swapped for arbitrary JSON: mostly invalid, always near the valid shapes. */
export const corruptedPolicy: fc.Arbitrary<unknown> = fc
  .tuple(acceptedPolicy, fc.nat(), fc.jsonValue({ maxDepth: 2 }))
  .map(([policy, choice, replacement]) => replaceAt(policy, choice, replacement));
