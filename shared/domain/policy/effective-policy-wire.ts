import {
  type Demand,
  type EffectivePolicy,
  effectiveAmountMax,
  factorTypes,
  type MethodDemand,
  methodRequirements,
  type PolicyFence,
} from '#shared/domain/policy/effective-policy';
import { parseFence, readGeoCircle } from '#shared/domain/policy/fences';
import {
  child,
  fail,
  get,
  has,
  item,
  type JsonObject,
  readArray,
  readBoolean,
  readChoice,
  readInteger,
  readObject,
} from '#shared/domain/policy/reader';
import { parseTimeFence, printTimeFence } from '#shared/domain/policy/time-fences';
import { quote } from '#shared/echo';

/*
 * The wire form of an EffectivePolicy: what the service hands a device with each pending request. Our own API, so
 * it is strict both ways: every key is always printed and always required, nothing else is accepted, and lists keep
 * one canonical order. Parsing what was printed gives the same policy back, and printing it again the same JSON.
 *
 * {
 *   "demand": {"kind": "amount", "amount": 1, "types": []},     // kind: "amount", "types" or "none"
 *     or {"kind": "cond_geo", "fences": [fence, …], "inside": {"kind", "amount", "types"}, "outside": {…}},
 *   "fence_groups": [[fence, …], …],            // inside at least one fence of every group
 *   "time_fence_groups": [[time fence, …], …],  // inside at least one window of every group
 *   "deny_rooted_jailbroken": false,
 *   "deny_emulator_simulator": false
 * }
 *
 * A fence is printed as the device later reports it in auth_policy (docs/protocol.md#auth_policy-and-auth_methods), name null when unset:
 * a legacy circle without `type` ({name, latitude, longitude, radius}), {type: "GEO_CIRCLE", name, latitude,
 * longitude, radius} or {type: "TERRITORY", name, country, administrative_area, postal_code}. A time fence is
 * printed as in a LEGACY policy ({name, days, "start hour", "start minute", "end hour", "end minute", timezone}).
 */

const root = 'effective_policy';
const policyKeys = [
  'demand',
  'fence_groups',
  'time_fence_groups',
  'deny_rooted_jailbroken',
  'deny_emulator_simulator',
] as const;
const methodDemandKeys = ['kind', 'amount', 'types'] as const;
const legacyCircleKeys = ['name', 'latitude', 'longitude', 'radius'] as const;
const geoCircleKeys = ['type', ...legacyCircleKeys] as const;
const territoryKeys = ['type', 'name', 'country', 'administrative_area', 'postal_code'] as const;

/** A fence as the device shows it: name always present, null when the policy gave none. */
export function printPolicyFence(fence: PolicyFence): Record<string, unknown> {
  switch (fence.type) {
    case 'LEGACY_CIRCLE':
      return { name: fence.name, latitude: fence.latitude, longitude: fence.longitude, radius: fence.radius };
    case 'GEO_CIRCLE':
      return {
        type: fence.type,
        name: fence.name,
        latitude: fence.latitude,
        longitude: fence.longitude,
        radius: fence.radius,
      };
    case 'TERRITORY':
      return {
        type: fence.type,
        name: fence.name,
        country: fence.country,
        administrative_area: fence.administrativeArea,
        postal_code: fence.postalCode,
      };
  }
}

function printMethodDemand(demand: MethodDemand): Record<string, unknown> {
  return { kind: demand.kind, amount: demand.amount, types: [...demand.types] };
}

function printDemand(demand: Demand): Record<string, unknown> {
  return demand.kind === 'cond_geo'
    ? {
        kind: demand.kind,
        fences: demand.fences.map(printPolicyFence),
        inside: printMethodDemand(demand.inside),
        outside: printMethodDemand(demand.outside),
      }
    : printMethodDemand(demand);
}

export function printEffectivePolicy(policy: EffectivePolicy): Record<string, unknown> {
  return {
    demand: printDemand(policy.demand),
    fence_groups: policy.fenceGroups.map((group) => group.map(printPolicyFence)),
    time_fence_groups: policy.timeFenceGroups.map((group) => group.map(printTimeFence)),
    deny_rooted_jailbroken: policy.denyRootedJailbroken,
    deny_emulator_simulator: policy.denyEmulatorSimulator,
  };
}

/**
 * Reads what `printEffectivePolicy` wrote, and nothing looser: a device must never act on a policy it half
 * understood, so a missing or unknown key fails instead of defaulting.
 *
 * @throws InvalidPolicyError with a reason naming the offending field under `effective_policy`.
 */
export function parseEffectivePolicy(json: unknown): EffectivePolicy {
  const object = readComplete(json, root, policyKeys);
  return {
    demand: parseDemand(get(object, 'demand'), child(root, 'demand')),
    fenceGroups: parseGroups(get(object, 'fence_groups'), child(root, 'fence_groups'), parsePolicyFence),
    timeFenceGroups: parseGroups(
      get(object, 'time_fence_groups'),
      child(root, 'time_fence_groups'),
      parseTimeFence,
    ),
    denyRootedJailbroken: readBoolean(
      get(object, 'deny_rooted_jailbroken'),
      child(root, 'deny_rooted_jailbroken'),
    ),
    denyEmulatorSimulator: readBoolean(
      get(object, 'deny_emulator_simulator'),
      child(root, 'deny_emulator_simulator'),
    ),
  };
}

/** An object with exactly `keys`: unknown ones are refused by the reader, missing ones here. */
function readComplete(value: unknown, path: string, keys: readonly string[]): JsonObject {
  const object = readObject(value, path, keys);
  for (const key of keys) {
    if (!has(object, key)) fail(child(path, key), 'required');
  }
  return object;
}

function parseDemand(value: unknown, path: string): Demand {
  const known = readObject(value, path, [...methodDemandKeys, 'fences', 'inside', 'outside']);
  const kindPath = child(path, 'kind');
  if (get(known, 'kind') !== 'cond_geo') {
    readChoice(get(known, 'kind'), kindPath, [...methodRequirements, 'cond_geo']);
    return readMethodDemand(readComplete(value, path, methodDemandKeys), path);
  }
  const object = readComplete(value, path, ['kind', 'fences', 'inside', 'outside']);
  const fencesPath = child(path, 'fences');
  const fences = readArray(get(object, 'fences'), fencesPath).map((fence, index) =>
    parsePolicyFence(fence, item(fencesPath, index)),
  );
  if (fences.length === 0) fail(fencesPath, 'must hold at least one fence');
  const branch = (key: 'inside' | 'outside') =>
    readMethodDemand(readComplete(get(object, key), child(path, key), methodDemandKeys), child(path, key));
  return { kind: 'cond_geo', fences, inside: branch('inside'), outside: branch('outside') };
}

/** A method demand whose kind agrees with what it holds: "types" with types, "amount" without, "none" with neither. */
function readMethodDemand(object: JsonObject, path: string): MethodDemand {
  const kind = readChoice(get(object, 'kind'), child(path, 'kind'), methodRequirements);
  const amount = readInteger(get(object, 'amount'), child(path, 'amount'), 0, effectiveAmountMax);
  const typesPath = child(path, 'types');
  const types = readArray(get(object, 'types'), typesPath).map((type, index) =>
    readChoice(type, item(typesPath, index), factorTypes),
  );
  // One spelling per set: the canonical order, no repeats.
  const canonical = factorTypes.filter((type) => types.includes(type));
  if (canonical.length !== types.length || canonical.some((type, index) => types[index] !== type)) {
    fail(typesPath, `must list distinct types in the order ${factorTypes.join(', ')}`);
  }
  if ((kind === 'types') !== canonical.length > 0) {
    fail(
      typesPath,
      kind === 'types' ? 'must not be empty for kind "types"' : `must be empty for kind "${kind}"`,
    );
  }
  if (kind === 'none' && amount !== 0) fail(child(path, 'amount'), 'must be 0 for kind "none"');
  return { kind, amount, types: canonical };
}

function parseGroups<T>(value: unknown, path: string, parse: (value: unknown, path: string) => T): T[][] {
  return readArray(value, path).map((group, index) => {
    const groupPath = item(path, index);
    const members = readArray(group, groupPath).map((member, at) => parse(member, item(groupPath, at)));
    if (members.length === 0) fail(groupPath, 'must not be empty');
    return members;
  });
}

function parsePolicyFence(value: unknown, path: string): PolicyFence {
  const object = readObject(value, path, [...geoCircleKeys, ...territoryKeys]);
  if (!has(object, 'type')) {
    return { type: 'LEGACY_CIRCLE', ...readGeoCircle(readComplete(value, path, legacyCircleKeys), path) };
  }
  const type = get(object, 'type');
  if (type === 'GEO_CIRCLE') readComplete(value, path, geoCircleKeys);
  else if (type === 'TERRITORY') readComplete(value, path, territoryKeys);
  else {
    const problem = typeof type === 'string' ? `unknown fence type ${quote(type)}` : 'must be a string';
    fail(child(path, 'type'), `${problem}, must be "GEO_CIRCLE", "TERRITORY" or absent for a legacy circle`);
  }
  return parseFence(value, path);
}
