import {
  type GeoCircle,
  parseFence,
  printGeoCircle,
  readGeoCircle,
  requireFenceCount,
} from '#shared/domain/policy/fences';
import {
  child,
  fail,
  get,
  has,
  item,
  type JsonObject,
  readArray,
  readBit,
  readFlag,
  readChoice,
  readInteger,
  readObject,
  requireUniqueNames,
} from '#shared/domain/policy/reader';
import {
  parseTimeFence,
  printTimeFence,
  requireTimeFenceCount,
  type TimeFence,
} from '#shared/domain/policy/time-fences';
import { quote } from '#shared/echo';

/** "forced requirement" makes the device enforce the factor; "allowed" lets it be skipped. */
export const factorRequirements = ['forced requirement', 'allowed'] as const;
export type FactorRequirement = (typeof factorRequirements)[number];

/** How the device treats one legacy factor. Kept so a later merge can pick the stricter of two. */
export interface FactorSettings {
  readonly requirement: FactorRequirement;
  readonly priority: number;
  /** Fail the whole authorization at once when this factor fails. */
  readonly quickfail: boolean;
}

export interface LegacyGeofence extends FactorSettings {
  /** Never empty: a geofence factor without locations is not stored. */
  readonly locations: readonly GeoCircle[];
}

export interface LegacyTimefence extends FactorSettings {
  /** Never empty. */
  readonly timeFences: readonly TimeFence[];
}

/**
 * The LEGACY policy, one normal form for the three encodings of docs/protocol.md#policies. `amount` (the wire's `any`) and the three
 * factor types are never combined: with `amount` > 0 all three are false.
 */
export interface LegacyPolicy {
  readonly type: 'LEGACY';
  /** Minimum number of factor types, 0..3; 0 with no type set means no requirement. */
  readonly amount: number;
  readonly inherence: boolean;
  readonly knowledge: boolean;
  readonly possession: boolean;
  readonly geofence: LegacyGeofence | null;
  readonly timefence: LegacyTimefence | null;
  /** Present only when enabled: an explicit "factor enabled: 0" is the same as no factor. */
  readonly deviceIntegrity: FactorSettings | null;
}

/** Three factor types exist, so no more than three can be demanded. */
export const legacyAmountMax = 3;

const defaultSettings: FactorSettings = { requirement: 'forced requirement', priority: 1, quickfail: false };
const shapedKeys = ['type', 'minimum_requirements', 'factors'] as const;
const flatKeys = [
  'amount',
  'inherence_required',
  'knowledge_required',
  'possession_required',
  'deny_rooted_jailbroken',
  'fences',
  'time_restrictions',
] as const;
const requirementKeys = ['requirement', 'any', 'all', 'knowledge', 'inherence', 'possession'] as const;
const factorKeys = ['factor', 'requirement', 'priority', 'quickfail', 'attributes'] as const;
const factorNames = ['geofence', 'timefence', 'device integrity'] as const;
type FactorName = (typeof factorNames)[number];

/**
 * Parses a LEGACY policy: `typed` says `type: "LEGACY"` was given, which is what makes PY's flat `LegacyPolicy`
 * shape (amount, *_required, fences, time_restrictions) recognisable. Without a type only the
 * minimum_requirements/factors shape is accepted (PY ServiceSecurityPolicy).
 */
export function parseLegacyPolicy(object: JsonObject, path: string, typed: boolean): LegacyPolicy {
  readObject(object, path, typed ? [...shapedKeys, ...flatKeys] : shapedKeys);
  const flat = flatKeys.filter((key) => has(object, key));
  if (flat.length === 0) return parseShaped(object, path);
  const shaped = shapedKeys.find((key) => key !== 'type' && has(object, key));
  if (shaped !== undefined) {
    fail(child(path, shaped), `cannot be combined with the flat LegacyPolicy key ${quote(flat[0] ?? '')}`);
  }
  return parseFlat(object, path);
}

function parseShaped(object: JsonObject, path: string): LegacyPolicy {
  const requirementsPath = child(path, 'minimum_requirements');
  const factorsPath = child(path, 'factors');
  // PY's set_policy needs both keys; every SDK sends both.
  if (!has(object, 'minimum_requirements')) fail(requirementsPath, 'required');
  if (!has(object, 'factors')) fail(factorsPath, 'required');
  return {
    type: 'LEGACY',
    ...parseMinimumRequirements(get(object, 'minimum_requirements'), requirementsPath),
    ...parseFactors(get(object, 'factors'), factorsPath),
  };
}

interface Requirement {
  readonly amount: number;
  readonly inherence: boolean;
  readonly knowledge: boolean;
  readonly possession: boolean;
}

function parseMinimumRequirements(value: unknown, path: string): Requirement {
  const items = readArray(value, path);
  if (items.length > 1) fail(path, 'must hold at most one item');
  if (items.length === 0) return { amount: 0, inherence: false, knowledge: false, possession: false };
  const itemPath = item(path, 0);
  const object = readObject(items[0], itemPath, requirementKeys);
  const requirement = readChoice(get(object, 'requirement'), child(itemPath, 'requirement'), [
    'authenticated',
    'enabled',
  ]);
  // JV sends null for any number it was not given; PY may say `all` for `any`.
  const count = (key: 'any' | 'all') => {
    const number = get(object, key);
    return number === undefined || number === null
      ? null
      : readInteger(number, child(itemPath, key), 0, legacyAmountMax);
  };
  const bit = (key: 'knowledge' | 'inherence' | 'possession') => {
    const flag = get(object, key);
    return flag === undefined || flag === null ? false : readBit(flag, child(itemPath, key));
  };
  const any = count('any');
  const all = count('all');
  if (any !== null && all !== null && any !== all) {
    fail(child(itemPath, 'all'), `disagrees with any (${any})`);
  }
  const result = {
    amount: any ?? all ?? 0,
    knowledge: bit('knowledge'),
    inherence: bit('inherence'),
    possession: bit('possession'),
  };
  const amountPath = child(itemPath, any === null && all !== null ? 'all' : 'any');
  checkRequirement(result, amountPath);
  // Only "authenticated" demands factors (JV ignores other items; PY would read them as demands): refusing
  // "enabled" with demands keeps the two SDKs from seeing different policies.
  if (requirement === 'enabled' && (result.amount > 0 || hasTypes(result))) {
    fail(child(itemPath, 'requirement'), '"enabled" demands no factors, use "authenticated" to require them');
  }
  return result;
}

function hasTypes(requirement: Requirement): boolean {
  return requirement.inherence || requirement.knowledge || requirement.possession;
}

/** PY's rule: "any" counts unspecified factor types, so naming types as well is contradictory. */
function checkRequirement(requirement: Requirement, amountPath: string): void {
  if (requirement.amount > 0 && hasTypes(requirement)) {
    fail(amountPath, 'cannot be combined with knowledge, inherence or possession requirements');
  }
}

interface Factors {
  readonly geofence: LegacyGeofence | null;
  readonly timefence: LegacyTimefence | null;
  readonly deviceIntegrity: FactorSettings | null;
}

function parseFactors(value: unknown, path: string): Factors {
  const result: { -readonly [K in keyof Factors]: Factors[K] } = {
    geofence: null,
    timefence: null,
    deviceIntegrity: null,
  };
  const seen = new Set<FactorName>();
  readArray(value, path).forEach((entry, index) => {
    const entryPath = item(path, index);
    const object = readObject(entry, entryPath, factorKeys);
    const name = get(object, 'factor');
    if (typeof name !== 'string' || !(factorNames as readonly string[]).includes(name)) {
      const problem = typeof name === 'string' ? `unknown factor ${quote(name)}` : 'required';
      fail(
        child(entryPath, 'factor'),
        `${problem}, must be one of ${factorNames.map((n) => `"${n}"`).join(', ')}`,
      );
    }
    const factor = name as FactorName;
    // Two entries of one kind would each carry settings; refusing beats guessing which wins.
    if (seen.has(factor)) fail(child(entryPath, 'factor'), `duplicate factor ${quote(factor)}`);
    seen.add(factor);
    const settings = parseSettings(object, entryPath);
    const attributesPath = child(entryPath, 'attributes');
    const attributes = get(object, 'attributes');
    if (attributes === undefined) fail(attributesPath, 'required');
    switch (factor) {
      case 'geofence': {
        const locations = parseLocations(attributes, attributesPath);
        result.geofence = locations.length > 0 ? { ...settings, locations } : null;
        break;
      }
      case 'timefence': {
        const timeFences = parseTimeFences(attributes, attributesPath);
        result.timefence = timeFences.length > 0 ? { ...settings, timeFences } : null;
        break;
      }
      case 'device integrity': {
        const attributesObject = readObject(attributes, attributesPath, ['factor enabled']);
        const enabledPath = child(attributesPath, 'factor enabled');
        if (!has(attributesObject, 'factor enabled')) fail(enabledPath, 'required');
        result.deviceIntegrity = readBit(get(attributesObject, 'factor enabled'), enabledPath)
          ? settings
          : null;
        break;
      }
    }
  });
  return result;
}

function parseSettings(object: JsonObject, path: string): FactorSettings {
  const requirement = get(object, 'requirement');
  const priority = get(object, 'priority');
  const quickfail = get(object, 'quickfail');
  return {
    // Both SDKs always send "forced requirement", and both read any listed factor as enforced.
    requirement:
      requirement === undefined
        ? defaultSettings.requirement
        : readChoice(requirement, child(path, 'requirement'), factorRequirements),
    priority:
      priority === undefined
        ? defaultSettings.priority
        : readInteger(priority, child(path, 'priority'), 0, Number.MAX_SAFE_INTEGER),
    quickfail:
      quickfail === undefined ? defaultSettings.quickfail : readFlag(quickfail, child(path, 'quickfail')),
  };
}

function parseLocations(attributes: unknown, path: string): GeoCircle[] {
  // "factor enabled" is documented as ignored on a geofence; accepted so such bodies still parse.
  const object = readObject(attributes, path, ['locations', 'factor enabled']);
  if (has(object, 'factor enabled')) readBit(get(object, 'factor enabled'), child(path, 'factor enabled'));
  const locationsPath = child(path, 'locations');
  if (!has(object, 'locations')) fail(locationsPath, 'required');
  const values = readArray(get(object, 'locations'), locationsPath);
  requireFenceCount(values, locationsPath);
  const locations = values.map((location, index) => {
    const locationPath = item(locationsPath, index);
    return readGeoCircle(
      readObject(location, locationPath, ['name', 'latitude', 'longitude', 'radius']),
      locationPath,
    );
  });
  requireUniqueLocationNames(locations, (index) => child(item(locationsPath, index), 'name'));
  return locations;
}

function parseTimeFences(attributes: unknown, path: string): TimeFence[] {
  const object = readObject(attributes, path, ['time fences']);
  const fencesPath = child(path, 'time fences');
  if (!has(object, 'time fences')) fail(fencesPath, 'required');
  return readTimeFenceList(get(object, 'time fences'), fencesPath);
}

function readTimeFenceList(value: unknown, path: string): TimeFence[] {
  const values = readArray(value, path);
  requireTimeFenceCount(values, path);
  const fences = values.map((fence, index) => parseTimeFence(fence, item(path, index)));
  // PY's add_timefence refuses a second fence of the same name, ignoring case.
  requireUniqueNames(
    fences.map((fence) => fence.name),
    (index) => child(item(path, index), 'name'),
  );
  return fences;
}

/** PY's add_geofence refuses a second location of the same name, ignoring case. */
function requireUniqueLocationNames(
  locations: readonly GeoCircle[],
  pathOf: (index: number) => string,
): void {
  requireUniqueNames(
    locations.map((location) => location.name),
    pathOf,
  );
}

/** PY `LegacyPolicy.__iter__`: translated to the factor form, because JV's strict parser cannot read this shape. */
function parseFlat(object: JsonObject, path: string): LegacyPolicy {
  const flag = (key: string) => {
    const value = get(object, key);
    return value === undefined ? false : readFlag(value, child(path, key));
  };
  const amountValue = get(object, 'amount');
  const requirement: Requirement = {
    amount:
      amountValue === undefined ? 0 : readInteger(amountValue, child(path, 'amount'), 0, legacyAmountMax),
    inherence: flag('inherence_required'),
    knowledge: flag('knowledge_required'),
    possession: flag('possession_required'),
  };
  checkRequirement(requirement, child(path, 'amount'));

  const fencesPath = child(path, 'fences');
  const fencesValue = get(object, 'fences');
  const fenceValues = fencesValue === undefined ? [] : readArray(fencesValue, fencesPath);
  requireFenceCount(fenceValues, fencesPath);
  const locations = fenceValues.map((value, index) => {
    const fence = parseFence(value, item(fencesPath, index));
    if (fence.type !== 'GEO_CIRCLE') {
      return fail(child(item(fencesPath, index), 'type'), 'a LEGACY policy takes only GEO_CIRCLE fences');
    }
    return { name: fence.name, latitude: fence.latitude, longitude: fence.longitude, radius: fence.radius };
  });
  requireUniqueLocationNames(locations, (index) => child(item(fencesPath, index), 'name'));

  const restrictions = get(object, 'time_restrictions');
  const timeFences =
    restrictions === undefined ? [] : readTimeFenceList(restrictions, child(path, 'time_restrictions'));

  return {
    type: 'LEGACY',
    ...requirement,
    geofence: locations.length > 0 ? { ...defaultSettings, locations } : null,
    timefence: timeFences.length > 0 ? { ...defaultSettings, timeFences } : null,
    deviceIntegrity: flag('deny_rooted_jailbroken') ? defaultSettings : null,
  };
}

function printSettings(factor: FactorName, settings: FactorSettings, attributes: Record<string, unknown>) {
  return {
    factor,
    requirement: settings.requirement,
    quickfail: settings.quickfail,
    priority: settings.priority,
    attributes,
  };
}

/**
 * The minimum_requirements/factors form both SDKs read. One requirement item with plain integers (never `all`, which
 * JV's strict MinimumRequirement refuses) or none; factors in JV's order (geofence, timefence, device integrity),
 * each with its settings.
 */
export function printLegacyPolicy(policy: LegacyPolicy): Record<string, unknown> {
  const demands = policy.amount > 0 || hasTypes(policy);
  const factors: Record<string, unknown>[] = [];
  if (policy.geofence) {
    factors.push(
      printSettings('geofence', policy.geofence, {
        locations: policy.geofence.locations.map(printGeoCircle),
      }),
    );
  }
  if (policy.timefence) {
    factors.push(
      printSettings('timefence', policy.timefence, {
        'time fences': policy.timefence.timeFences.map(printTimeFence),
      }),
    );
  }
  if (policy.deviceIntegrity) {
    factors.push(printSettings('device integrity', policy.deviceIntegrity, { 'factor enabled': 1 }));
  }
  return {
    type: 'LEGACY',
    minimum_requirements: demands
      ? [
          {
            requirement: 'authenticated',
            any: policy.amount,
            knowledge: policy.knowledge ? 1 : 0,
            inherence: policy.inherence ? 1 : 0,
            possession: policy.possession ? 1 : 0,
          },
        ]
      : [],
    factors,
  };
}
