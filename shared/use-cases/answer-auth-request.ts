import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { type AuthAnswer, authRequestState } from '#shared/domain/auth-request';
import { ApiError, invalidArgument, notFound } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import { publishEnded } from '#shared/events/publish-push';
import { type Entity, isUuid } from '#shared/protocol/entity';
import { answerAuthRequest, getAuthRequest } from '#shared/store/auth-requests';
import type { HeadItem } from '#shared/store/heads';
import { getUser, releasePendingSlot } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { lockAfterFraud } from '#shared/use-cases/push-fatigue';
import { numberMatchFailed } from '#shared/use-cases/auth-request-outcomes';
import { matchNumber } from '#shared/use-cases/number-matching';
import { checkAnswerAssertion, devicePasskey } from '#shared/use-cases/passkeys';

export interface DeviceAnswer {
  readonly authJwe: string;
  readonly auth?: string | null;
  readonly authV1?: string | null;
  /** The device says the user denied with a fraud reason (docs/protocol.md#push-fatigue). */
  readonly fraud?: boolean | null;
  /** The code the user typed, for a request with number matching (docs/protocol.md#number-matching). */
  readonly numberMatchCode?: string | null;
  /** The passkey's assertion, which a device with a passkey sends with every answer (docs/protocol.md#passkeys). */
  readonly webauthn?: AuthenticationResponseJSON | null;
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
  baseUrl: string,
): Promise<{ readonly serviceId: string }> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!isUuid(authId)) throw notFound('There is no such request for this device');
  await checkPasskey(device, head, authId, input, baseUrl);
  const answer: AuthAnswer = {
    deviceId: device.id,
    authJwe: input.authJwe,
    auth: input.auth ?? null,
    authV1: input.authV1 ?? null,
    answeredAt: isoSeconds(now),
  };
  const matched =
    input.numberMatchCode == null
      ? undefined
      : await matchNumber(authId, device.id, deviceUserKey(head), input.numberMatchCode, nowSeconds);
  let answered = await answerAuthRequest(authId, answer, nowSeconds, matched);
  if (!answered) {
    const auth = await getAuthRequest(authId);
    if (!auth || !auth.deviceIds.includes(device.id))
      throw notFound('There is no such request for this device');
    const state = authRequestState(auth, nowSeconds);
    if (state === 'pending' && auth.numberMatchCode !== undefined)
      throw invalidArgument('number_match_code: this request needs the code the application shows');
    if (auth.numberMatchFailed) throw numberMatchFailed();
    const retried =
      state === 'answered' && auth.answer?.deviceId === device.id && auth.answer.authJwe === input.authJwe;
    if (!retried) {
      if (state === 'answered') throw new ApiError('SVC-006', 'The request was already answered');
      if (state === 'cancelled') throw new ApiError('SVC-007', 'The request was cancelled');
      throw new ApiError('HTTP-408', 'The request has expired');
    }
    answered = auth;
  }
  await releasePendingSlot(deviceUserKey(head), authId);
  if (input.fraud) await lockAfterFraud(deviceUserKey(head), nowSeconds);
  await publishEvent({ kind: 'authorization-response', authRequestId: authId });
  await publishEnded(authId);
  return { serviceId: answered.serviceId };
}

/**
 * The passkey check of an answer (docs/protocol.md#passkeys), before anything is recorded. The same answer sent again
 * (a retry) is not checked again: its assertion was used up by the first, and the answer is already this device's.
 */
async function checkPasskey(
  device: Entity,
  head: HeadItem | undefined,
  authId: string,
  input: DeviceAnswer,
  baseUrl: string,
): Promise<void> {
  const key = deviceUserKey(head);
  const passkey = devicePasskey(await getUser(key), device.id);
  if (!passkey && !input.webauthn) return;
  if (passkey) {
    const recorded = (await getAuthRequest(authId))?.answer;
    if (recorded?.deviceId === device.id && recorded.authJwe === input.authJwe) return;
  }
  await checkAnswerAssertion({
    passkey,
    assertion: input.webauthn,
    key,
    deviceId: device.id,
    authRequestId: authId,
    hashKey: await currentHashKey(),
    baseUrl,
  });
}
