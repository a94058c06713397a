import type { AuthFactor, InnerPolicy } from '#shared/domain/policy/advanced';
import type { Fence, GeoCircle } from '#shared/domain/policy/fences';
import type { FactorSettings, LegacyPolicy } from '#shared/domain/policy/legacy';
import type { ServicePolicy } from '#shared/domain/policy/service-policy';
import type { TimeFence } from '#shared/domain/policy/time-fences';

/** Factor types in the one order every list keeps (PY's auth_policy parser depends on it, docs/protocol.md#auth_policy-and-auth_methods). */
export const factorTypes = ['inherence', 'knowledge', 'possession'] as const;
export type FactorType = (typeof factorTypes)[number];

/** METHOD_AMOUNT allows up to 5 and LEGACY up to 3; the larger bound holds both, and five methods count. */
export const effectiveAmountMax = 5;

/**
 * A circle from a LEGACY geofence factor. Kept apart from GEO_CIRCLE because devices report the two differently in
 * auth_policy (the legacy one without `type`), and the relying party sees which kind of policy it set.
 */
export interface LegacyCircleFence extends GeoCircle {
  readonly type: 'LEGACY_CIRCLE';
}

export type PolicyFence = Fence | LegacyCircleFence;

/**
 * What kind of requirement a policy set, which the device reports back as `auth_policy.requirement` and the SDKs read
 * as AMOUNT, TYPES or no requirement: METHOD_AMOUNT is "amount" (even with an amount of 0, which the SDKs' features
 * expect back as "amount"), FACTORS is "types", LEGACY is "types" when it requires a type, "amount" when it requires
 * an amount, and "none" when it requires neither. Amount and types alone cannot tell a METHOD_AMOUNT of 0 from no
 * policy, so the kind travels with them.
 */
export const methodRequirements = ['amount', 'types', 'none'] as const;
export type MethodRequirement = (typeof methodRequirements)[number];

/**
 * What the device must verify, in one unit for every policy kind: `amount` counts distinct authentication methods
 * (pin_code, circle_code, fingerprint, face, wearables; geofencing and locations never count), and each listed type
 * needs at least one verified method of that type. Both hold together once a merge has combined them; `kind` says
 * which the policy asked for (see MethodRequirement): "types" whenever types are required, "none" only when nothing
 * is.
 *
 * Mapping: LEGACY `any` → amount, its knowledge/inherence/possession flags → types; METHOD_AMOUNT `amount` → amount;
 * FACTORS `factors` → types. LEGACY `any` is read as methods, not factor types, because the answer reports both in
 * one `amount` ("number of authentication methods required") and the Java SDK's "required factor counts" feature
 * expects a legacy `any: 3` back as amount 3; so `any: 2` is met by a PIN code plus a circle code.
 */
export interface MethodDemand {
  readonly kind: MethodRequirement;
  readonly amount: number;
  /** No duplicates, ordered as `factorTypes`. */
  readonly types: readonly FactorType[];
}

/** COND_GEO: `inside` applies when the device is inside at least one of `fences`, `outside` otherwise. */
export interface ConditionalDemand {
  readonly kind: 'cond_geo';
  /** At least one. */
  readonly fences: readonly PolicyFence[];
  readonly inside: MethodDemand;
  readonly outside: MethodDemand;
}

export type Demand = MethodDemand | ConditionalDemand;

/** Whether the demand may ask for an inherence factor: either branch of a COND_GEO, since the device reports where it is. */
export function asksForInherence(demand: Demand): boolean {
  if (demand.kind === 'cond_geo') return asksForInherence(demand.inside) || asksForInherence(demand.outside);
  return demand.types.includes('inherence');
}

/**
 * The single policy a device must satisfy for one authorization request: the service policy with the request's
 * policy applied on top, each constraint at the stricter of the two (docs/protocol.md#creating-a-request). Plain JSON data.
 *
 * Location and time constraints are lists of groups: the device must be inside at least one fence (or time window)
 * of every group. Each side's fences form their own group, so a request can only add a place the device must be,
 * never widen where the service lets it be. Legacy factors set to "allowed" rather than "forced requirement" are
 * not enforced (docs/protocol.md#creating-a-request) and do not appear; priority and quickfail only order the device's prompts and
 * are dropped, since a device that fails any constraint fails the whole request anyway.
 */
export interface EffectivePolicy {
  readonly demand: Demand;
  /** Each group non-empty. */
  readonly fenceGroups: readonly (readonly PolicyFence[])[];
  /** Each group non-empty. */
  readonly timeFenceGroups: readonly (readonly TimeFence[])[];
  readonly denyRootedJailbroken: boolean;
  readonly denyEmulatorSimulator: boolean;
}

/**
 * The policy for one request. The stricter value wins per constraint: amounts take the maximum, required types and
 * deny flags are OR-ed, fence and time-window groups of both sides all apply, and a service COND_GEO stays
 * conditional with the request's demand merged into both of its branches. A request cannot loosen anything.
 */
export function effectivePolicy(service: ServicePolicy, request?: LegacyPolicy): EffectivePolicy {
  const base = fromServicePolicy(service);
  if (request === undefined) return base;
  const extra = fromLegacy(request);
  return {
    demand: mergeDemand(base.demand, legacyDemand(request)),
    fenceGroups: union(base.fenceGroups, extra.fenceGroups),
    timeFenceGroups: union(base.timeFenceGroups, extra.timeFenceGroups),
    denyRootedJailbroken: base.denyRootedJailbroken || extra.denyRootedJailbroken,
    denyEmulatorSimulator: base.denyEmulatorSimulator || extra.denyEmulatorSimulator,
  };
}

function fromServicePolicy(policy: ServicePolicy): EffectivePolicy {
  if (policy.type === 'LEGACY') return fromLegacy(policy);
  const demand: Demand =
    policy.type === 'COND_GEO'
      ? {
          kind: 'cond_geo',
          fences: policy.fences,
          inside: fromInner(policy.inside),
          outside: fromInner(policy.outside),
        }
      : fromInner(policy);
  return {
    demand,
    // COND_GEO's fences choose a branch; they are not a place the device must be.
    fenceGroups: policy.type !== 'COND_GEO' && policy.fences.length > 0 ? [policy.fences] : [],
    timeFenceGroups: [],
    denyRootedJailbroken: policy.denyRootedJailbroken,
    denyEmulatorSimulator: policy.denyEmulatorSimulator,
  };
}

function fromInner(policy: InnerPolicy): MethodDemand {
  return policy.type === 'METHOD_AMOUNT'
    ? { kind: 'amount', amount: policy.amount, types: [] }
    : { kind: 'types', amount: 0, types: policy.factors.map(lowerFactor) };
}

function lowerFactor(factor: AuthFactor): FactorType {
  return factor.toLowerCase() as FactorType;
}

const enforced = (settings: FactorSettings | null): boolean =>
  settings !== null && settings.requirement === 'forced requirement';

function legacyDemand(policy: LegacyPolicy): MethodDemand {
  const types = factorTypes.filter((type) => policy[type]);
  return { kind: requirementOf(policy.amount, types), amount: policy.amount, types };
}

/** The kind of what a legacy policy, or a merge, requires: types say the most, then an amount, else nothing. */
function requirementOf(amount: number, types: readonly FactorType[], amountKind = false): MethodRequirement {
  if (types.length > 0) return 'types';
  return amountKind || amount > 0 ? 'amount' : 'none';
}

function fromLegacy(policy: LegacyPolicy): EffectivePolicy {
  const geofence = policy.geofence;
  const timefence = policy.timefence;
  return {
    demand: legacyDemand(policy),
    fenceGroups:
      geofence !== null && enforced(geofence)
        ? [geofence.locations.map((location) => ({ type: 'LEGACY_CIRCLE' as const, ...location }))]
        : [],
    timeFenceGroups: timefence !== null && enforced(timefence) ? [timefence.timeFences] : [],
    denyRootedJailbroken: enforced(policy.deviceIntegrity),
    // LEGACY has no emulator check.
    denyEmulatorSimulator: false,
  };
}

/**
 * The stricter of two method demands: the larger amount and every type either side requires. Its kind is "types" if
 * any type is required, else "amount" if either side asked for an amount (a METHOD_AMOUNT of 0 stays "amount"), else
 * "none".
 */
function mergeMethodDemands(a: MethodDemand, b: MethodDemand): MethodDemand {
  const amount = Math.max(a.amount, b.amount);
  const types = factorTypes.filter((type) => a.types.includes(type) || b.types.includes(type));
  return { kind: requirementOf(amount, types, a.kind === 'amount' || b.kind === 'amount'), amount, types };
}

/** A service COND_GEO stays conditional: the request's demand is added to whichever branch applies. */
function mergeDemand(service: Demand, request: MethodDemand): Demand {
  if (service.kind !== 'cond_geo') return mergeMethodDemands(service, request);
  return {
    kind: 'cond_geo',
    fences: service.fences,
    inside: mergeMethodDemands(service.inside, request),
    outside: mergeMethodDemands(service.outside, request),
  };
}

/** Both sides' groups; a group equal to one already present adds nothing and is left out. */
function union<T>(a: readonly (readonly T[])[], b: readonly (readonly T[])[]): (readonly T[])[] {
  const seen = new Set(a.map((group) => JSON.stringify(group)));
  return [...a, ...b.filter((group) => !seen.has(JSON.stringify(group)))];
}
