import { type Fence, parseFences, printFence } from '#shared/domain/policy/fences';
import {
  child,
  fail,
  get,
  has,
  item,
  type JsonObject,
  readAnyObject,
  readArray,
  readInteger,
  readObject,
  readOptionalArray,
  readOptionalFlag,
} from '#shared/domain/policy/reader';
import { quote } from '#shared/echo';

/** Factor types in the order every list is kept and printed (PY's auth_policy parser depends on it, docs/protocol.md#auth_policy-and-auth_methods). */
export const authFactors = ['INHERENCE', 'KNOWLEDGE', 'POSSESSION'] as const;
export type AuthFactor = (typeof authFactors)[number];

/**
 * Bounds of METHOD_AMOUNT's `amount`, a number of authentication methods (not factor types). Both SDKs' integration
 * features ("Setting Amount on a Method Amount policy works as expected") set 0 to 5 and expect each back, so the
 * retired service accepted them; 0 demands nothing more than the blank policy does.
 */
export const methodAmountMin = 0;
export const methodAmountMax = 5;

export interface MethodAmountRule {
  readonly type: 'METHOD_AMOUNT';
  readonly amount: number;
}

export interface FactorsRule {
  readonly type: 'FACTORS';
  /** Non-empty, no duplicates, ordered as `authFactors`. */
  readonly factors: readonly AuthFactor[];
}

/** What a COND_GEO policy demands inside or outside its fences: no fences and no device flags of its own. */
export type InnerPolicy = MethodAmountRule | FactorsRule;

interface DeviceFlags {
  readonly fences: readonly Fence[];
  readonly denyRootedJailbroken: boolean;
  readonly denyEmulatorSimulator: boolean;
}

export interface MethodAmountPolicy extends MethodAmountRule, DeviceFlags {}

export interface FactorsPolicy extends FactorsRule, DeviceFlags {}

export interface ConditionalGeoPolicy extends DeviceFlags {
  readonly type: 'COND_GEO';
  /** At least one. */
  readonly fences: readonly Fence[];
  readonly inside: InnerPolicy;
  readonly outside: InnerPolicy;
}

export type AdvancedPolicy = MethodAmountPolicy | FactorsPolicy | ConditionalGeoPolicy;

const flagKeys = ['type', 'fences', 'deny_rooted_jailbroken', 'deny_emulator_simulator'] as const;

function readFlags(object: JsonObject, path: string): DeviceFlags {
  return {
    fences: parseFences(get(object, 'fences'), child(path, 'fences')),
    denyRootedJailbroken: readOptionalFlag(
      get(object, 'deny_rooted_jailbroken'),
      child(path, 'deny_rooted_jailbroken'),
    ),
    denyEmulatorSimulator: readOptionalFlag(
      get(object, 'deny_emulator_simulator'),
      child(path, 'deny_emulator_simulator'),
    ),
  };
}

function readAmount(object: JsonObject, path: string): number {
  const amountPath = child(path, 'amount');
  // PY's validator requires it and JV unboxes it into an int.
  if (!has(object, 'amount')) fail(amountPath, 'required');
  return readInteger(get(object, 'amount'), amountPath, methodAmountMin, methodAmountMax);
}

/** Upper-cases on input (PY's FactorsPolicy once did the same); refuses unknown and repeated types. */
function readFactors(object: JsonObject, path: string): AuthFactor[] {
  const factorsPath = child(path, 'factors');
  if (!has(object, 'factors')) fail(factorsPath, 'required');
  const values = readArray(get(object, 'factors'), factorsPath);
  if (values.length === 0) fail(factorsPath, 'must name at least one factor type');
  const seen = new Set<AuthFactor>();
  values.forEach((value, index) => {
    const factor = typeof value === 'string' ? value.toUpperCase() : undefined;
    if (factor === undefined || !(authFactors as readonly string[]).includes(factor)) {
      const problem = typeof value === 'string' ? `unknown factor type ${quote(value)}` : 'must be a string';
      fail(item(factorsPath, index), `${problem}, must be one of ${authFactors.join(', ')}`);
    }
    if (seen.has(factor as AuthFactor))
      fail(item(factorsPath, index), `duplicate factor type ${quote(factor)}`);
    seen.add(factor as AuthFactor);
  });
  return authFactors.filter((factor) => seen.has(factor));
}

export function parseMethodAmountPolicy(object: JsonObject, path: string): MethodAmountPolicy {
  readObject(object, path, [...flagKeys, 'amount']);
  return { type: 'METHOD_AMOUNT', amount: readAmount(object, path), ...readFlags(object, path) };
}

export function parseFactorsPolicy(object: JsonObject, path: string): FactorsPolicy {
  readObject(object, path, [...flagKeys, 'factors']);
  return { type: 'FACTORS', factors: readFactors(object, path), ...readFlags(object, path) };
}

export function parseConditionalGeoPolicy(object: JsonObject, path: string): ConditionalGeoPolicy {
  readObject(object, path, [...flagKeys, 'inside', 'outside']);
  const flags = readFlags(object, path);
  if (flags.fences.length === 0) fail(child(path, 'fences'), 'must hold at least one fence');
  return {
    type: 'COND_GEO',
    ...flags,
    inside: parseInnerPolicy(get(object, 'inside'), child(path, 'inside')),
    outside: parseInnerPolicy(get(object, 'outside'), child(path, 'outside')),
  };
}

/**
 * An inside/outside policy. PY's `to_dict` sends `fences: []` and no flags, JV sends neither; an actual fence or a
 * true flag is refused, as both SDKs refuse them when building the policy.
 */
function parseInnerPolicy(value: unknown, path: string): InnerPolicy {
  if (value === undefined) fail(path, 'required');
  const object = readAnyObject(value, path);
  const type = get(object, 'type');
  if (type !== 'METHOD_AMOUNT' && type !== 'FACTORS') {
    const problem = typeof type === 'string' ? `${quote(type)} cannot be nested` : 'required';
    fail(child(path, 'type'), `${problem}, an inside or outside policy must be METHOD_AMOUNT or FACTORS`);
  }
  readObject(object, path, [...flagKeys, type === 'METHOD_AMOUNT' ? 'amount' : 'factors']);
  if (readOptionalArray(get(object, 'fences'), child(path, 'fences')).length > 0) {
    fail(
      child(path, 'fences'),
      'must be empty in an inside or outside policy, the fences belong to COND_GEO',
    );
  }
  for (const key of ['deny_rooted_jailbroken', 'deny_emulator_simulator']) {
    if (readOptionalFlag(get(object, key), child(path, key))) {
      fail(child(path, key), 'cannot be set in an inside or outside policy, set it on the COND_GEO policy');
    }
  }
  return type === 'METHOD_AMOUNT'
    ? { type, amount: readAmount(object, path) }
    : { type, factors: readFactors(object, path) };
}

/** Nested policies print without fences and flags: JV reads both absences as "none", PY fills `fences: []`. */
function printInnerPolicy(policy: InnerPolicy): Record<string, unknown> {
  return policy.type === 'METHOD_AMOUNT'
    ? { type: policy.type, amount: policy.amount }
    : { type: policy.type, factors: [...policy.factors] };
}

function printFlags(policy: DeviceFlags): Record<string, unknown> {
  return {
    fences: policy.fences.map(printFence),
    deny_rooted_jailbroken: policy.denyRootedJailbroken,
    deny_emulator_simulator: policy.denyEmulatorSimulator,
  };
}

export function printAdvancedPolicy(policy: AdvancedPolicy): Record<string, unknown> {
  switch (policy.type) {
    case 'METHOD_AMOUNT':
      return { type: policy.type, amount: policy.amount, ...printFlags(policy) };
    case 'FACTORS':
      return { type: policy.type, factors: [...policy.factors], ...printFlags(policy) };
    case 'COND_GEO': {
      const { fences, ...flags } = printFlags(policy);
      return {
        type: policy.type,
        fences,
        inside: printInnerPolicy(policy.inside),
        outside: printInnerPolicy(policy.outside),
        ...flags,
      };
    }
  }
}
