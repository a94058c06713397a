import type { EffectivePolicy } from '#shared/domain/policy/effective-policy';
import { printPolicyFence } from '#shared/domain/policy/effective-policy-wire';

/**
 * The `auth_policy` a device puts in its answer (interface.md §2.3, sdk-compatibility §9.2): the policy it used.
 *
 * - `requirement` is "types" when any type is required (then `types` only), else "amount" when an amount is
 *   (then `amount` only), else null (neither). A merged policy can require both; the wire can carry one, and types
 *   say more about what was verified. COND_GEO reports "cond_geo" with neither, as the SDKs read nothing else there.
 * - `types` are lower case in the order inherence, knowledge, possession: PY's parser reads them from a one-shot
 *   iterator in that order and misreports any other order.
 * - `geofences` is always an array: the COND_GEO fences first, then every group's fences, as the device shows them.
 * - No other key: PY's AuthPolicyValidator refuses extra fields.
 */
export function authPolicyReport(policy: EffectivePolicy): Record<string, unknown> {
  const demand = policy.demand;
  const geofences = [...(demand.kind === 'cond_geo' ? demand.fences : []), ...policy.fenceGroups.flat()].map(
    printPolicyFence,
  );
  if (demand.kind === 'cond_geo') return { requirement: 'cond_geo', geofences };
  if (demand.types.length > 0) return { requirement: 'types', types: [...demand.types], geofences };
  if (demand.amount > 0) return { requirement: 'amount', amount: demand.amount, geofences };
  return { requirement: null, geofences };
}
