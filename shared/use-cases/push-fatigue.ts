import {
  mayRequest,
  type PushFatigueSettings,
  requestCounts,
  secondsUntilAllowed,
  type StoredRequestCounts,
} from '#shared/domain/push-fatigue';
import type { UserKey } from '#shared/domain/user';
import { ApiError } from '#shared/errors';
import {
  countUserRequestWrite,
  type FraudLock,
  getDirectorySettings,
  getRequestCounts,
  lockUser,
} from '#shared/store/push-fatigue';
import type { TableWrite } from '#shared/store/write-together';
import { isoSeconds } from '#shared/time';

/** Refuses a new request for a user locked after a fraud denial (USR-002, docs/protocol.md#push-fatigue). */
export function refuseLockedUser(lock: FraudLock | undefined, nowSeconds: number): void {
  // A lock outlives a setting turned off: clearing it is the operator's decision, not the setting's.
  if (lock && lock.lockedUntil > nowSeconds) {
    throw new ApiError('USR-002', 'The user denied a request as fraud and cannot be asked again yet', {
      data: { retry_after: lock.lockedUntil - nowSeconds, locked_until: isoTime(lock.lockedUntil) },
    });
  }
}

/**
 * A new request's count against the user's rate limit, as a write of the create's transaction, from the counter read
 * with the user (`stored`): USR-001 instead, before anything is written, when the sliding estimate is used up. The
 * write fails its condition if the limit is reached meanwhile, or if the counter moved on to a new window under
 * another create: then read it again (`readRequestCounts`) and call this again. Counted with the claim of the
 * user's slot, so a 409 or a failed create costs nothing.
 */
export function newRequestCount(
  key: UserKey,
  settings: PushFatigueSettings,
  stored: StoredRequestCounts | undefined,
  nowSeconds: number,
): TableWrite {
  const { rateLimit } = settings;
  const counts = requestCounts(rateLimit, stored, nowSeconds);
  if (!mayRequest(rateLimit, counts, nowSeconds)) {
    throw new ApiError(
      'USR-001',
      `The user reached the directory's limit of ${rateLimit.count} requests per ${rateLimit.windowSeconds} seconds`,
      {
        data: {
          retry_after: secondsUntilAllowed(rateLimit, counts, nowSeconds),
          limit: rateLimit.count,
          window_seconds: rateLimit.windowSeconds,
        },
      },
    );
  }
  return countUserRequestWrite(key.directoryId, key.identifier, rateLimit, stored, nowSeconds);
}

/** The user's counter as it is now, after a create's count failed its condition. */
export function readRequestCounts(key: UserKey): Promise<StoredRequestCounts | undefined> {
  return getRequestCounts(key.directoryId, key.identifier);
}

/** Locks the user after a fraud denial, when the directory has the lock on. */
export async function lockAfterFraud(key: UserKey, nowSeconds: number): Promise<void> {
  const { fraudLockSeconds } = await getDirectorySettings(key.directoryId);
  if (fraudLockSeconds !== null)
    await lockUser(key.directoryId, key.identifier, nowSeconds + fraudLockSeconds);
}

const isoTime = (epochSeconds: number) => isoSeconds(new Date(epochSeconds * 1000));
