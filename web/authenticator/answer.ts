/**
 * The browser's answer: the core's evaluation and sealing, plus the passkey assertion every answer of a device with a
 * passkey carries (docs/protocol.md#passkeys). The core's `Authenticator.answer` sends no assertion, so this wraps the
 * same pieces it is made of rather than change it.
 */
import { sealAnswer } from '#shared/authenticator/answer-packages';
import { type Decision, type Evaluation, evaluate } from '#shared/authenticator/evaluate';
import {
  browserDeviceKeys,
  denialWithoutCode,
  type PendingAuthRequestView,
} from '#shared/authenticator/index';
import { rotateServicePins } from '#shared/authenticator/service-pins';
import { ApiClient } from '#shared/client/api-client';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import type { EffectivePolicy } from '#shared/domain/policy/effective-policy';
import { configurationOf, type Verification, type WebDeviceState } from './device-state.ts';

/**
 * The global fetch, called as a function: the core's ApiClient keeps `fetch` as a property and calls it as a method,
 * which browsers refuse ("Illegal invocation") unless it is a function of its own.
 */
export const pageFetch: typeof fetch = (input, init) => fetch(input, init);

/** The device's signed client: `dev:<device id>`, signing with its non-extractable key. */
export function deviceClient(state: WebDeviceState): ApiClient {
  return new ApiClient({
    baseUrl: state.baseUrl,
    issuer: `dev:${state.deviceId}`,
    key: browserDeviceKeys.open(state),
    fetch: pageFetch,
  });
}

export const policyOf = (request: PendingAuthRequestView): EffectivePolicy =>
  parseEffectivePolicy(request.policy);

/** Whether answering needs the browser's position: the policy has fences, or picks its demand by place. */
export const needsLocation = (policy: EffectivePolicy): boolean =>
  policy.fenceGroups.length > 0 || policy.demand.kind === 'cond_geo';

/**
 * The methods an approval would verify, as the evaluation chooses them (every factor assumed to pass), and whether
 * the device can meet the policy at all: what the request's screen asks for before the tap.
 */
export function plannedMethods(
  state: WebDeviceState,
  request: PendingAuthRequestView,
  verification: Verification,
): { methods: Set<string>; evaluation: Evaluation } {
  const evaluation = evaluate(
    policyOf(request),
    { ...configurationOf(state, verification), now: new Date() },
    { kind: 'approve' },
  );
  const methods = new Set(
    evaluation.authMethods.filter((method) => method.passed !== null).map((method) => String(method.method)),
  );
  return { methods, evaluation };
}

export interface BrowserAnswer {
  readonly decision: Decision;
  readonly verification: Verification;
  readonly numberMatchCode?: string;
  readonly assertion?: Record<string, unknown>;
}

/**
 * Evaluates, seals and sends the answer; the state to keep (rotated service pins) once the service took it. A denial
 * of a request with number matching goes without the code, in the clear (docs/protocol.md#number-matching).
 */
export async function sendAnswer(
  state: WebDeviceState,
  request: PendingAuthRequestView,
  answer: BrowserAnswer,
): Promise<{ evaluation: Evaluation; state: WebDeviceState }> {
  const evaluation = evaluate(
    policyOf(request),
    { ...configurationOf(state, answer.verification), now: new Date() },
    answer.decision,
  );
  const path = `/device/v3/auths/${request.auth_request}`;
  const assertion = answer.assertion ? { webauthn: answer.assertion } : {};
  if (request.number_match && answer.decision.kind === 'deny' && answer.numberMatchCode === undefined) {
    // A denial needs no code: it goes in the clear, with no pins, so none rotate.
    await deviceClient(state).call('POST', path, {
      body: { ...denialWithoutCode(evaluation), ...assertion },
    });
    return { evaluation, state };
  }
  const serviceId = request.service.id;
  const servicePins = rotateServicePins(state.servicePins[serviceId] ?? []);
  const packages = await sealAnswer(request, {
    authRequest: request.auth_request,
    deviceId: state.deviceId,
    servicePins,
    evaluation,
  });
  await deviceClient(state).call('POST', path, {
    body: {
      ...packages,
      ...(evaluation.reason === 'FRAUDULENT' ? { fraud: true } : {}),
      ...(answer.numberMatchCode === undefined ? {} : { number_match_code: answer.numberMatchCode }),
      ...assertion,
    },
  });
  return {
    evaluation,
    state: { ...state, servicePins: { ...state.servicePins, [serviceId]: servicePins } },
  };
}
