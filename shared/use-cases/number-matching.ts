import { timingSafeEqual } from 'node:crypto';
import { authRequestState, maxNumberMatchFailures } from '#shared/domain/auth-request';
import { ApiError } from '#shared/errors';
import { publishEnded } from '#shared/events/publish-push';
import { getAuthRequest, recordNumberMatchFailure } from '#shared/store/auth-requests';
import type { UserKey } from '#shared/domain/user';
import { releasePendingSlot } from '#shared/store/users';
import { numberMatchFailed } from '#shared/use-cases/auth-request-outcomes';

/**
 * Checks the code a device sent with its answer (docs/protocol.md#number-matching) and returns it when it is the
 * request's, for the answer's own conditional write. A wrong code is counted; the last allowed one ends the request
 * (SVC-008) and frees the user. A request without number matching ignores the code; one that is not pending for this
 * device is left to the answer to explain.
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
  const counted = await recordNumberMatchFailure(authId, deviceId, nowSeconds, maxNumberMatchFailures);
  if (counted?.numberMatchFailed || !counted) {
    await releasePendingSlot(userKey, authId);
    // The request is over: its prompt comes down on the user's devices now, not at expiry.
    await publishEnded(authId);
    throw numberMatchFailed();
  }
  const left = maxNumberMatchFailures - (counted.numberMatchFailures ?? 0);
  throw new ApiError('SVC-009', `The number-matching code is wrong; ${left} attempts left`, {
    data: { attempts_left: left },
  });
}

/** Compares in constant time, so the time an answer takes says nothing about how much of the code was right. */
function sameCode(sent: string, expected: string): boolean {
  const a = Buffer.from(sent.padEnd(8, ' '));
  const b = Buffer.from(expected.padEnd(8, ' '));
  return timingSafeEqual(a, b) && sent.length === expected.length;
}
