import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { type AuthAnswer, authRequestState, type ClearDenial } from '#shared/domain/auth-request';
import { ApiError, forbidden, invalidArgument, notFound } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import { publishEnded } from '#shared/events/publish-push';
import { type Entity, isUuid } from '#shared/protocol/entity';
import { answerWithSlot, getAuthRequest } from '#shared/store/auth-requests';
import type { HeadItem } from '#shared/store/heads';
import type { User, UserKey } from '#shared/domain/user';
import { getUser } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { lockAfterFraud } from '#shared/use-cases/push-fatigue';
import { numberMatchFailed } from '#shared/use-cases/auth-request-outcomes';
import { deniedWithoutCode, matchNumber } from '#shared/use-cases/number-matching';
import { checkAnswerAssertion, devicePasskey } from '#shared/use-cases/passkeys';

/** A device's answer: the sealed packages, or a denial said in the clear (docs/protocol.md#answering). */
export type DeviceAnswer = SealedAnswer | DenialWithoutCode;

interface AnswerProof {
  /** The passkey's assertion, which a device with a passkey sends with every answer (docs/protocol.md#passkeys). */
  readonly webauthn?: AuthenticationResponseJSON | null;
}

export interface SealedAnswer extends AnswerProof {
  readonly authJwe: string;
  readonly auth?: string | null;
  readonly authV1?: string | null;
  /** The device says the user denied with a fraud reason (docs/protocol.md#push-fatigue). */
  readonly fraud?: boolean | null;
  /** The code the user typed, for a request with number matching (docs/protocol.md#number-matching). */
  readonly numberMatchCode?: string | null;
  readonly deny?: undefined;
}

/** The user denied a request with number matching without its code; the service writes the package. */
export interface DenialWithoutCode extends AnswerProof {
  readonly deny: ClearDenial;
}

/**
 * Records a device's answer and announces it. Only a device the request was offered to may answer, once, while it is
 * pending; the same answer sent again (a retry after a failed enqueue) succeeds again and is announced once more.
 * Answers the service the request is from, for the audit trail.
 */
export async function answerAsDevice(
  device: Entity,
  head: HeadItem | undefined,
  authId: string,
  input: DeviceAnswer,
  now: Date,
  passkeyOrigin: string | undefined,
): Promise<{ readonly serviceId: string }> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!isUuid(authId)) throw notFound('There is no such request for this device');
  const key = deviceUserKey(head);
  const user = await getUser(key);
  refuseUnprovenFactors(user, device, authId);
  await checkPasskey(device, key, user, authId, input, passkeyOrigin);
  // The slot names the request's service while the request holds it, which is when the answer is the device's last.
  const slot = {
    user: key,
    serviceId: user?.pending?.authId === authId ? user.pending.serviceId : undefined,
  };
  const recorded = input.deny
    ? await recordDenialWithoutCode(slot, device.id, authId, input.deny, nowSeconds)
    : await recordSealedAnswer(slot, device.id, authId, input, now);
  const serviceId = recorded
    ? await answeredService(user, authId)
    : await retriedAnswerService(device, authId, input, nowSeconds);
  if (input.deny ? input.deny.fraud : input.fraud) await lockAfterFraud(key, nowSeconds);
  // Both at once; taking the prompt down never fails, so the answer's event decides the outcome.
  const ended = publishEnded(authId);
  try {
    await publishEvent({ kind: 'authorization-response', authRequestId: authId });
  } finally {
    await ended;
  }
  return { serviceId };
}

/** The user whose slot an answer frees, and the service of the request that holds it, if it still does. */
type AnsweredSlot = Parameters<typeof answerWithSlot>[0];

/** The device's sealed answer, its number-matching code checked first; false when it was not recorded. */
async function recordSealedAnswer(
  slot: AnsweredSlot,
  deviceId: string,
  authId: string,
  input: SealedAnswer,
  now: Date,
): Promise<boolean> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const answer: AuthAnswer = {
    deviceId,
    authJwe: input.authJwe,
    auth: input.auth ?? null,
    authV1: input.authV1 ?? null,
    answeredAt: isoSeconds(now),
    // Kept for health's count of denials: the package itself is sealed.
    ...(input.fraud ? { fraud: true as const } : {}),
  };
  const matched =
    input.numberMatchCode == null
      ? undefined
      : await matchNumber(authId, deviceId, slot.user, input.numberMatchCode, nowSeconds);
  return answerWithSlot(
    slot,
    authId,
    answer,
    nowSeconds,
    matched === undefined ? undefined : { code: matched },
  );
}

/** A denial without the code, as the package the service writes for it; false when it was not recorded. */
async function recordDenialWithoutCode(
  slot: AnsweredSlot,
  deviceId: string,
  authId: string,
  denial: ClearDenial,
  nowSeconds: number,
): Promise<boolean> {
  const answer = await deniedWithoutCode(await getAuthRequest(authId), deviceId, denial, nowSeconds);
  return (
    answer !== undefined && answerWithSlot(slot, authId, answer, nowSeconds, { deniedWithoutCode: true })
  );
}

/** Whether `input` is the answer this device already gave: the same sealed package, or the same clear denial. */
function sameAnswer(recorded: AuthAnswer | undefined, deviceId: string, input: DeviceAnswer): boolean {
  if (recorded?.deviceId !== deviceId) return false;
  if (!input.deny) return recorded.clearDenial === undefined && recorded.authJwe === input.authJwe;
  return (
    recorded.clearDenial?.denialReason === input.deny.denialReason &&
    recorded.clearDenial.fraud === input.deny.fraud
  );
}

/** The service an answer just recorded is for: the slot named the request when the device read it. */
async function answeredService(user: User | undefined, authId: string): Promise<string> {
  const pending = user?.pending?.authId === authId ? user.pending : await getAuthRequest(authId);
  if (!pending) throw new Error(`The answered request ${authId} is gone`);
  return pending.serviceId;
}

/**
 * Why an answer was not recorded, as the refusal the device gets; or, for the same answer sent again, the service of
 * the request it answered already.
 */
async function retriedAnswerService(
  device: Entity,
  authId: string,
  input: DeviceAnswer,
  nowSeconds: number,
): Promise<string> {
  const auth = await getAuthRequest(authId);
  if (!auth || !auth.deviceIds.includes(device.id))
    throw notFound('There is no such request for this device');
  const state = authRequestState(auth, nowSeconds);
  if (state === 'pending' && auth.numberMatchCode !== undefined && !input.deny)
    throw invalidArgument(
      'number_match_code: this request needs the code the application shows to be approved; deny it without the code with deny',
    );
  if (auth.numberMatchFailed) throw numberMatchFailed();
  if (state === 'answered' && sameAnswer(auth.answer, device.id, input)) return auth.serviceId;
  if (state === 'answered') throw new ApiError('SVC-006', 'The request was already answered');
  if (state === 'cancelled') throw new ApiError('SVC-007', 'The request was cancelled');
  throw new ApiError('HTTP-408', 'The request has expired');
}

/**
 * Where the directory takes inherence only proven to it (docs/protocol.md#proven-factors), a device without a passkey
 * may not answer with a sealed package: the service cannot tell an approval in it from a denial, and the device's own
 * report of a biometric check is exactly what a device enrolled with an application's stolen key would forge.
 */
function refuseUnprovenFactors(user: User | undefined, device: Entity, authId: string): void {
  const pending = user?.pending;
  if (pending?.authId !== authId || !pending.shown?.passkeyRequired) return;
  if (devicePasskey(user, device.id)) return;
  throw forbidden(
    "This request's policy asks for inherence, which the directory takes only proven with a passkey: register one on this device (POST /device/v3/passkey/options) to approve",
  );
}

/**
 * The passkey check of an answer (docs/protocol.md#passkeys), before anything is recorded. The same answer sent again
 * (a retry) is not checked again: its assertion was used up by the first, and the answer is already this device's.
 */
async function checkPasskey(
  device: Entity,
  key: UserKey,
  user: User | undefined,
  authId: string,
  input: DeviceAnswer,
  passkeyOrigin: string | undefined,
): Promise<void> {
  const passkey = devicePasskey(user, device.id);
  if (!passkey && !input.webauthn) return;
  if (passkey && sameAnswer((await getAuthRequest(authId))?.answer, device.id, input)) return;
  await checkAnswerAssertion({
    passkey,
    assertion: input.webauthn,
    key,
    deviceId: device.id,
    authRequestId: authId,
    hashKey: await currentHashKey(),
    origin: passkeyOrigin,
  });
}
