import { type LegacyPolicy, parseLegacyPolicy } from '#shared/domain/policy/legacy';
import { requirePolicySize } from '#shared/domain/policy/limits';
import { child, fail, get, item, readAnyObject } from '#shared/domain/policy/reader';
import { quote } from '#shared/echo';

const root = 'policy';
const advancedTypes = ['METHOD_AMOUNT', 'FACTORS', 'COND_GEO'];

/**
 * The `policy` of `POST /service/v3/auths` (docs/protocol.md#policies). Both SDKs send only the legacy
 * minimum_requirements/factors form, without `type`: PY `AuthPolicy` (ints, `quickfail`, device integrity always
 * listed with 0 or 1) and JV `AuthPolicy` (nulls in the requirement, device integrity only when on). The legacy
 * parser of the service policy reads both, so a request and a service policy share one normal form and can be merged.
 *
 * Refused, although a service policy may hold them: time fences (no SDK can put one in a request, and the device
 * answers a request by position and methods, not by the caller's clock), the typed METHOD_AMOUNT, FACTORS and
 * COND_GEO forms (PY refuses them for requests; JV's request type cannot carry them) and PY's flat LegacyPolicy keys.
 * A `type` of "LEGACY" or null is tolerated with the factor form, as it says nothing more. It is bounded by the service
 * policy's `policyLimits`.
 *
 * @throws InvalidPolicyError with a reason naming the offending field under `policy`.
 */
export function parseAuthRequestPolicy(input: unknown): LegacyPolicy {
  requirePolicySize(input, root);
  const object = readAnyObject(input, root);
  const type = get(object, 'type');
  if (type !== undefined && type !== null && type !== 'LEGACY') {
    const problem =
      typeof type === 'string' && advancedTypes.includes(type)
        ? `${quote(type)} is a service policy type`
        : typeof type === 'string'
          ? `unknown policy type ${quote(type)}`
          : 'must be a string';
    fail(
      child(root, 'type'),
      `${problem}, an authorization request takes only the legacy minimum_requirements/factors form`,
    );
  }
  refuseTimeFences(get(object, 'factors'));
  // Untyped mode: only type, minimum_requirements and factors are known keys, so the flat shape is refused by name.
  return parseLegacyPolicy(object, root, false);
}

/** Checked before parsing: the legacy parser drops a time-fence factor with no fences, which must not pass either. */
function refuseTimeFences(factors: unknown): void {
  if (!Array.isArray(factors)) return;
  factors.forEach((factor: unknown, index) => {
    if (typeof factor !== 'object' || factor === null || Array.isArray(factor)) return;
    if (get(factor as Readonly<Record<string, unknown>>, 'factor') === 'timefence') {
      fail(
        child(item(child(root, 'factors'), index), 'factor'),
        '"timefence" is not allowed in an authorization request, set time fences in the service policy',
      );
    }
  });
}
