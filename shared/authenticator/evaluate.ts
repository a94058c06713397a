import { insideAny, type Position, type Territory } from '#shared/authenticator/geo';
import {
  type AuthMethodName,
  authMethodNames,
  canMeet,
  type MethodSetup,
  type MethodState,
  methodState,
  selectMethods,
} from '#shared/authenticator/methods';
import { insideTimeFence } from '#shared/authenticator/time-window';
import { authPolicyReport } from '#shared/domain/policy/auth-policy-report';
import type { EffectivePolicy, MethodDemand } from '#shared/domain/policy/effective-policy';

export type { AuthMethodName, MethodSetup } from '#shared/authenticator/methods';

export interface DeviceState {
  /** The methods this device knows; one it does not know is neither reported nor usable. */
  readonly methods: Partial<Record<AuthMethodName, MethodSetup>>;
  /** Current position, for GEO_CIRCLE and legacy fences. */
  readonly location?: Position;
  /** Current territory, for TERRITORY fences. */
  readonly territory?: Territory;
  readonly rootedOrJailbroken?: boolean;
  readonly emulator?: boolean;
  /** A local auth request is pending on the device. */
  readonly busyLocal?: boolean;
  /** For time fences. */
  readonly now: Date;
}

/**
 * What the user chose once the device could ask. There is no bare "deny as fraud": FRAUDULENT comes from a denial
 * reason marked fraud, as the SDKs only learn of fraud through the reason (docs/protocol.md#creating-a-request); a device offering a
 * fraud choice without the request's reasons passes a reason of its own.
 */
export type Decision =
  | { readonly kind: 'approve' }
  | { readonly kind: 'deny'; readonly denialReason?: { id: string; fraud: boolean } };

export type EvaluationType = 'AUTHORIZED' | 'DENIED' | 'FAILED';
export type EvaluationReason =
  | 'APPROVED'
  | 'DISAPPROVED'
  | 'FRAUDULENT'
  | 'POLICY'
  | 'PERMISSION'
  | 'AUTHENTICATION'
  | 'CONFIGURATION'
  | 'BUSY_LOCAL';

export interface Evaluation {
  readonly type: EvaluationType;
  readonly reason: EvaluationReason;
  /** The chosen denial reason id; null unless the user denied with one. */
  readonly denialReason: string | null;
  /** docs/protocol.md#auth_policy-and-auth_methods auth_policy. */
  readonly authPolicy: Record<string, unknown>;
  /** docs/protocol.md#auth_policy-and-auth_methods auth_methods: exactly the 8 keys each, in the order processed. */
  readonly authMethods: Record<string, unknown>[];
}

type Outcome = Pick<Evaluation, 'type' | 'reason' | 'denialReason'>;

interface Attempt {
  readonly passed: boolean;
  readonly error: boolean;
}

const failed = (reason: EvaluationReason): Outcome => ({ type: 'FAILED', reason, denialReason: null });

/**
 * What the reference authenticator answers to one request. Checks run in this order and the first that fails
 * decides; nothing later is attempted, so auth_methods shows exactly what ran:
 *
 * 1. BUSY_LOCAL — a local request is pending: the device takes nothing else.
 * 2. POLICY — the device cannot meet the policy whatever its user does: rooted or jailbroken under
 *    deny_rooted_jailbroken, an emulator under deny_emulator_simulator, outside every window of a time-fence group,
 *    outside every fence of a fence group, or too few methods set up (or none of a required type) for the amount
 *    and types demanded — for COND_GEO, for the branch its position selects, or for neither branch when the
 *    position is unknown.
 * 3. CONFIGURATION — what the user set up would do, but the app disallows or the device does not support part of
 *    it: geofencing when the policy has fences, enough methods for the demand, or a method the user requires.
 * 4. PERMISSION — all of that is configured, but an OS permission is missing where it is needed (the same three).
 * 5. AUTHENTICATION — a chosen method fails verification (see `selectMethods` for which are chosen; they run in
 *    processing order and the first failure stops the rest).
 * 6. The user's decision, only now that the policy is met: APPROVED, or DISAPPROVED / FRAUDULENT with the chosen
 *    denial reason. A denial is verified like an approval, so that nobody but the user can deny in their name.
 *
 * auth_methods lists every method the device knows, in processing order (wearables, geofencing, locations,
 * pin_code, circle_code, face, fingerprint — the order real devices report), each with:
 * `set` (null for geofencing, which the user does not set up), `active` (usable now: set, allowed, supported and
 * permitted; for geofencing allowed, supported and permitted), `allowed`, `supported`, `user_required` (null when the
 * method is not set, and for geofencing), and `passed` / `error`: the verification result and false for a method that
 * ran, null for one that did not (geofencing runs when the policy has fences and the device got that far).
 */
export function evaluate(policy: EffectivePolicy, device: DeviceState, decision: Decision): Evaluation {
  const methods = authMethodNames.flatMap((name) => {
    const setup = device.methods[name];
    return setup === undefined ? [] : [methodState(name, setup)];
  });
  const attempts = new Map<AuthMethodName, Attempt>();
  return {
    ...decide(policy, device, decision, methods, attempts),
    authPolicy: authPolicyReport(policy),
    authMethods: methods.map((method) => reportMethod(method, attempts.get(method.name))),
  };
}

function decide(
  policy: EffectivePolicy,
  device: DeviceState,
  decision: Decision,
  methods: readonly MethodState[],
  attempts: Map<AuthMethodName, Attempt>,
): Outcome {
  if (device.busyLocal === true) return failed('BUSY_LOCAL');
  const integrityFails =
    (policy.denyRootedJailbroken && device.rootedOrJailbroken === true) ||
    (policy.denyEmulatorSimulator && device.emulator === true);
  const outsideTime = !policy.timeFenceGroups.every((group) =>
    group.some((fence) => insideTimeFence(fence, device.now)),
  );
  if (integrityFails || outsideTime) return failed('POLICY');

  const demand = policy.demand;
  const geofencing = methods.find((method) => method.name === 'geofencing');
  const needsLocation = policy.fenceGroups.length > 0 || demand.kind === 'cond_geo';
  const locates = needsLocation && geofencing?.active === true;
  // The demand that applies, or null while the position that selects a COND_GEO branch is unknown.
  let branch: MethodDemand | null = demand.kind === 'cond_geo' ? null : demand;
  if (locates) {
    const inside = policy.fenceGroups.every((group) => insideAny(group, device));
    attempts.set('geofencing', { passed: inside, error: false });
    if (!inside) return failed('POLICY');
    if (demand.kind === 'cond_geo')
      branch = insideAny(demand.fences, device) ? demand.inside : demand.outside;
  }
  const candidates =
    branch !== null ? [branch] : demand.kind === 'cond_geo' ? [demand.inside, demand.outside] : [];
  const meetable = (pool: readonly MethodState[]) => candidates.some((candidate) => canMeet(candidate, pool));
  const required = methods.filter((method) => method.userRequired);
  const active = methods.filter((method) => method.active);

  if (!meetable(methods.filter((method) => method.set))) return failed('POLICY');
  if (
    (needsLocation && geofencing?.usable !== true) ||
    !meetable(methods.filter((method) => method.usable)) ||
    required.some((method) => !method.usable)
  ) {
    return failed('CONFIGURATION');
  }
  if (
    branch === null ||
    (needsLocation && !locates) ||
    !meetable(active) ||
    required.some((m) => !m.active)
  ) {
    return failed('PERMISSION');
  }

  const chosen = selectMethods(branch, active);
  for (const method of active) {
    if (!chosen.has(method.name)) continue;
    attempts.set(method.name, { passed: method.verifies, error: false });
    if (!method.verifies) return failed('AUTHENTICATION');
  }

  if (decision.kind === 'approve') return { type: 'AUTHORIZED', reason: 'APPROVED', denialReason: null };
  const reason = decision.denialReason;
  return {
    type: 'DENIED',
    reason: reason?.fraud === true ? 'FRAUDULENT' : 'DISAPPROVED',
    denialReason: reason?.id ?? null,
  };
}

function reportMethod(method: MethodState, attempt: Attempt | undefined): Record<string, unknown> {
  const geofencing = method.name === 'geofencing';
  return {
    method: method.name,
    set: geofencing ? null : method.set,
    active: method.active,
    allowed: method.allowed,
    supported: method.supported,
    user_required: geofencing || !method.set ? null : method.userRequired,
    passed: attempt?.passed ?? null,
    error: attempt?.error ?? null,
  };
}
