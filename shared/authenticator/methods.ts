import type { FactorType, MethodDemand } from '#shared/domain/policy/effective-policy';

/** The method names of auth_methods (docs/protocol.md#auth_policy-and-auth_methods), in the order a device processes and reports them. */
export const authMethodNames = [
  'wearables',
  'geofencing',
  'locations',
  'pin_code',
  'circle_code',
  'face',
  'fingerprint',
] as const;
export type AuthMethodName = (typeof authMethodNames)[number];

/**
 * The factor type each verifying method proves. geofencing (the policy's fences) and locations (places the user
 * chose) are location checks: they prove no type and never count towards an amount. locations therefore runs only
 * when the user requires it; geofencing runs when the policy has fences.
 */
export const methodFactor: Readonly<Partial<Record<AuthMethodName, FactorType>>> = {
  wearables: 'possession',
  pin_code: 'knowledge',
  circle_code: 'knowledge',
  face: 'inherence',
  fingerprint: 'inherence',
};

/**
 * How one method is on this device. For geofencing, `set`, `userRequired` and `verifies` mean nothing: the user
 * does not set it up, the policy decides when it runs, and its outcome is the device's position against the fences.
 */
export interface MethodSetup {
  /** The user set it up. */
  readonly set: boolean;
  /** The app embedding the SDK allows it (default true). */
  readonly allowed?: boolean;
  /** The device supports it (default true). */
  readonly supported?: boolean;
  /** The user wants it on every request (default false). */
  readonly userRequired?: boolean;
  /** The OS permission it needs is granted (default true). */
  readonly permission?: boolean;
  /** Verifying it succeeds now (default true; false simulates a wrong PIN or finger). */
  readonly verifies?: boolean;
}

/** A method with its defaults applied, and the stages of availability the evaluation distinguishes. */
export interface MethodState {
  readonly name: AuthMethodName;
  readonly set: boolean;
  readonly allowed: boolean;
  readonly supported: boolean;
  readonly userRequired: boolean;
  readonly permission: boolean;
  readonly verifies: boolean;
  /** Set, allowed and supported: only the OS permission may still be missing. */
  readonly usable: boolean;
  /** Usable and permitted: the device can verify it now (auth_methods `active`). */
  readonly active: boolean;
}

/** geofencing is on whenever the app allows it and the device supports it; the user has nothing to set. */
export function methodState(name: AuthMethodName, setup: MethodSetup): MethodState {
  const allowed = setup.allowed ?? true;
  const supported = setup.supported ?? true;
  const permission = setup.permission ?? true;
  const set = name === 'geofencing' ? true : setup.set;
  const usable = set && allowed && supported;
  return {
    name,
    set,
    allowed,
    supported,
    userRequired: name !== 'geofencing' && set && (setup.userRequired ?? false),
    permission,
    verifies: setup.verifies ?? true,
    usable,
    active: usable && permission,
  };
}

/** Methods that count towards an amount, in processing order. */
export function countingMethods(methods: readonly MethodState[]): MethodState[] {
  return methods.filter((method) => methodFactor[method.name] !== undefined);
}

/** Whether verifying all of `methods` could meet `demand`: enough of them, and one of every required type. */
export function canMeet(demand: MethodDemand, methods: readonly MethodState[]): boolean {
  const counting = countingMethods(methods);
  return (
    counting.length >= demand.amount &&
    demand.types.every((type) => counting.some((method) => methodFactor[method.name] === type))
  );
}

/**
 * The methods the device verifies for `demand` out of `active` ones (all in processing order): every user-required
 * one, the first `amount` counting ones, and the first one of each required type. Not always the fewest — an amount
 * of 1 plus inherence may take wearables and face — but monotone: a stricter demand never verifies fewer methods,
 * so a device approved under a merged policy is approved under each policy it was merged from.
 */
export function selectMethods(demand: MethodDemand, active: readonly MethodState[]): Set<AuthMethodName> {
  const counting = countingMethods(active);
  const chosen = new Set<AuthMethodName>();
  for (const method of active) if (method.userRequired) chosen.add(method.name);
  for (const method of counting.slice(0, demand.amount)) chosen.add(method.name);
  for (const type of demand.types) {
    const method = counting.find((candidate) => methodFactor[candidate.name] === type);
    if (method !== undefined) chosen.add(method.name);
  }
  return chosen;
}
