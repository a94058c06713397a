import type { EffectivePolicy } from '#shared/domain/policy/effective-policy';
import { printPolicyFence } from '#shared/domain/policy/effective-policy-wire';

/**
 * The `auth_policy` a device puts in its answer: the policy it used, as the SDKs read it.
 *
 * - `requirement` is the demand's kind: "amount" (then `amount` only), "types" (then `types` only) or null for no
 *   requirement (neither). A METHOD_AMOUNT of 0 is "amount" with amount 0, which the SDKs read as AMOUNT; a merged
 *   policy that requires both an amount and types says "types", as types say more about what was verified. COND_GEO
 *   reports "cond_geo" with neither, as the SDKs read nothing else there.
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
  switch (demand.kind) {
    case 'cond_geo':
      return { requirement: 'cond_geo', geofences };
    case 'types':
      return { requirement: 'types', types: [...demand.types], geofences };
    case 'amount':
      return { requirement: 'amount', amount: demand.amount, geofences };
    case 'none':
      return { requirement: null, geofences };
  }
}
