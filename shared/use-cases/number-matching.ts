import { timingSafeEqual } from 'node:crypto';
import { noteForAudit } from '#shared/audit/audit-notes';
import {
  type AuthAnswer,
  type AuthRequest,
  authRequestState,
  type ClearDenial,
  maxNumberMatchFailures,
} from '#shared/domain/auth-request';
import type { UserKey } from '#shared/domain/user';
import { ApiError, invalidArgument } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import { publishEnded } from '#shared/events/publish-push';
import { encryptJson } from '#shared/protocol/jwe';
import { importPublicKey } from '#shared/protocol/pem';
import { getAuthRequest, recordNumberMatchFailure } from '#shared/store/auth-requests';
import { isoSeconds } from '#shared/time';
import { releasePendingSlot } from '#shared/store/users';
import { numberMatchFailed } from '#shared/use-cases/auth-request-outcomes';

/**
 * Checks the code a device sent with its answer (docs/protocol.md#number-matching) and returns it when it is the
 * request's, for the answer's own conditional write. A wrong code is counted; the last allowed one ends the request
 * with a FAILED answer that the application gets on its poll and webhook, frees the user, and answers the device
 * SVC-008. A request without number matching ignores the code; one that is not pending for this device is left to
 * the answer to explain.
 */
export async function matchNumber(
  authId: string,
  deviceId: string,
  userKey: UserKey,
  code: string,
  nowSeconds: number,
): Promise<string | undefined> {
  const auth = await getAuthRequest(authId);
  if (
    !auth?.numberMatchCode ||
    !auth.deviceIds.includes(deviceId) ||
    authRequestState(auth, nowSeconds) !== 'pending'
  )
    return undefined;
  if (sameCode(code, auth.numberMatchCode)) return code;
  const counted = await recordNumberMatchFailure(auth, deviceId, nowSeconds, maxNumberMatchFailures, () =>
    failedAnswer(auth, deviceId, nowSeconds),
  );
  if (counted?.ended || !counted) {
    // Ended by this code, the slot is free already; by another's or otherwise, freeing it again changes nothing.
    if (!counted) await releasePendingSlot(userKey, authId);
    if (counted?.ended) await publishEvent({ kind: 'authorization-response', authRequestId: authId });
    // The request is over: its prompt comes down on the user's devices now, not at expiry.
    await publishEnded(authId);
    // The pipeline's audit record cannot tell this end of the request from a later answer's SVC-008.
    throw noteForAudit(numberMatchFailed(), { auth_event: 'ended-by-wrong-codes' });
  }
  const left = maxNumberMatchFailures - counted.failures;
  throw new ApiError('SVC-009', `The number-matching code is wrong; ${left} attempts left`, {
    data: { attempts_left: left },
  });
}

/**
 * The answer a request ends with after the last wrong code: FAILED for AUTHENTICATION, as LaunchKey's apps reported
 * a user who failed the device's own checks, so the SDKs read it as a failed (never an authorized) response. The
 * service makes it because the device's own answer never comes; it is encrypted to the requester's key like any
 * answer, and carries no pins, policy or methods, since nothing was evaluated.
 */
async function failedAnswer(auth: AuthRequest, deviceId: string, nowSeconds: number): Promise<AuthAnswer> {
  const authJwe = await encryptJson(
    {
      type: 'FAILED',
      reason: 'AUTHENTICATION',
      denial_reason: null,
      auth_request: auth.id,
      device_id: deviceId,
      service_pins: [],
    },
    { kid: auth.requesterKid, publicKey: importPublicKey(auth.requesterPublicKey) },
  );
  return { deviceId, authJwe, auth: null, authV1: null, answeredAt: isoSeconds(new Date(nowSeconds * 1000)) };
}

/**
 * The answer to a request with number matching that the user denied without its code (docs/protocol.md#number-matching):
 * DENIED, DISAPPROVED or FRAUDULENT with the chosen denial reason, as the authenticators seal a denial. Only the
 * attacker who started the sign-in sees the code, so the user must be able to deny (and report fraud) without it;
 * the sealed answer would hide a denial from an approval, so the device says it in the clear and the service writes
 * the package, encrypted to the requester's key like any answer. The reason must be one the request offers and its
 * fraud flag what the device says; without a reason there is no fraud, as with a sealed denial. Nothing in it can
 * authorize. Undefined when the request is not pending for this device, for the answer to explain.
 */
export async function deniedWithoutCode(
  auth: AuthRequest | undefined,
  deviceId: string,
  denial: ClearDenial,
  nowSeconds: number,
): Promise<AuthAnswer | undefined> {
  if (!auth?.deviceIds.includes(deviceId) || authRequestState(auth, nowSeconds) !== 'pending')
    return undefined;
  if (auth.numberMatchCode === undefined)
    throw invalidArgument('deny: only a request with number matching is denied without the sealed answer');
  const reason =
    denial.denialReason === null
      ? undefined
      : auth.denialReasons?.find((offered) => offered.id === denial.denialReason);
  if (denial.denialReason !== null && !reason)
    throw invalidArgument(`deny.denial_reason: the request offers no denial reason "${denial.denialReason}"`);
  const fraud = reason?.fraud ?? false;
  if (denial.fraud !== fraud)
    throw invalidArgument(
      reason
        ? `deny.fraud: must be ${fraud}, as the denial reason "${reason.id}" is${fraud ? '' : ' not'} marked fraud`
        : 'deny.fraud: must be false without a denial reason, which is what marks a denial as fraud',
    );
  const authJwe = await encryptJson(
    {
      type: 'DENIED',
      reason: fraud ? 'FRAUDULENT' : 'DISAPPROVED',
      denial_reason: reason?.id ?? null,
      auth_request: auth.id,
      device_id: deviceId,
      service_pins: [],
    },
    { kid: auth.requesterKid, publicKey: importPublicKey(auth.requesterPublicKey) },
  );
  return {
    deviceId,
    authJwe,
    auth: null,
    authV1: null,
    answeredAt: isoSeconds(new Date(nowSeconds * 1000)),
    clearDenial: { denialReason: reason?.id ?? null, fraud },
  };
}

/** Compares in constant time, so the time an answer takes says nothing about how much of the code was right. */
function sameCode(sent: string, expected: string): boolean {
  const a = Buffer.from(sent.padEnd(8, ' '));
  const b = Buffer.from(expected.padEnd(8, ' '));
  return timingSafeEqual(a, b) && sent.length === expected.length;
}
