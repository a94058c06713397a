import {
  type AdvancedPolicy,
  parseConditionalGeoPolicy,
  parseFactorsPolicy,
  parseMethodAmountPolicy,
  printAdvancedPolicy,
} from '#shared/domain/policy/advanced';
import { type LegacyPolicy, parseLegacyPolicy, printLegacyPolicy } from '#shared/domain/policy/legacy';
import { requirePolicySize } from '#shared/domain/policy/limits';
import { child, fail, get, readAnyObject } from '#shared/domain/policy/reader';

// The error travels with the parser that throws it; callers import both from here.
export { InvalidPolicyError } from '#shared/domain/policy/errors';
import { quote } from '#shared/echo';

/**
 * The normalised, JSON-serialisable form the service stores (plain objects, arrays, strings, numbers, booleans and
 * null only). Each kind has exactly one representation, whatever encoding the client used, so equal policies compare
 * equal and a later merge (the stricter value wins) has one shape to work with.
 */
export type ServicePolicy = LegacyPolicy | AdvancedPolicy;

/** What GET returns when no policy is set or after DELETE (docs/protocol.md#policies). */
export const blankServicePolicy: ServicePolicy = Object.freeze({
  type: 'LEGACY',
  amount: 0,
  inherence: false,
  knowledge: false,
  possession: false,
  geofence: null,
  timefence: null,
  deviceIntegrity: null,
} as const);

const root = 'policy';

/**
 * Accepts every encoding a client may PUT (docs/protocol.md#policies): PY's untyped ServiceSecurityPolicy, JV's typed LEGACY, PY's flat
 * LegacyPolicy, and METHOD_AMOUNT, FACTORS and COND_GEO. Validates strictly — unknown keys, unknown types and
 * out-of-range values are refused rather than dropped, so a client's mistake is reported instead of silently
 * weakening the policy. Sizes are bounded by `policyLimits`, the whole input's before any of it is read.
 *
 * @throws InvalidPolicyError with a reason naming the offending field's path.
 */
export function parseServicePolicy(input: unknown): ServicePolicy {
  requirePolicySize(input, root);
  const object = readAnyObject(input, root);
  const type = get(object, 'type');
  switch (type) {
    case undefined:
    case null:
      return parseLegacyPolicy(object, root, false);
    case 'LEGACY':
      return parseLegacyPolicy(object, root, true);
    case 'METHOD_AMOUNT':
      return parseMethodAmountPolicy(object, root);
    case 'FACTORS':
      return parseFactorsPolicy(object, root);
    case 'COND_GEO':
      return parseConditionalGeoPolicy(object, root);
    default: {
      const problem = typeof type === 'string' ? `unknown policy type ${quote(type)}` : 'must be a string';
      return fail(child(root, 'type'), `${problem}, must be LEGACY, METHOD_AMOUNT, FACTORS or COND_GEO`);
    }
  }
}

/**
 * The body of `.../service/policy/item` (docs/protocol.md#policies), which both SDKs' strictest readers accept: JV's `Policy` (no key
 * outside its nine at any level) and PY's validators plus `ServiceSecurityPolicy.set_policy`. LEGACY prints in the
 * minimum_requirements/factors form with `type`, even when the client sent PY's flat shape.
 */
export function printServicePolicy(policy: ServicePolicy): Record<string, unknown> {
  return policy.type === 'LEGACY' ? printLegacyPolicy(policy) : printAdvancedPolicy(policy);
}
