import { randomUUID } from 'node:crypto';
import { writeAuditRecord } from '#shared/audit/write-audit-record';
import {
  type DirectorySettings,
  type PushFatigueSettings,
  parseCoolingOff,
  parseFraudLock,
  parseOnOff,
  parseRateLimit,
  parseWebLinking,
  rateWindow,
} from '#shared/domain/push-fatigue';
import type { UserKey } from '#shared/domain/user';
import { ApiError } from '#shared/errors';
import { getHead } from '#shared/store/heads';
import {
  clearFraudLock,
  countUserRequestWrite,
  type FraudLock,
  getDirectorySettings,
  listFraudLocks,
  lockUser,
  putDirectorySettings,
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
 * A new request's count against the user's rate limit, as a write of the create's transaction: it fails its condition
 * once the window's count is used up (then `rateLimitReached`). Counted with the claim of the user's slot, so a 409
 * or a failed create costs nothing.
 */
export function newRequestCount(key: UserKey, settings: PushFatigueSettings, nowSeconds: number): TableWrite {
  const { rateLimit } = settings;
  return countUserRequestWrite(
    key.directoryId,
    key.identifier,
    rateLimit,
    rateWindow(rateLimit, nowSeconds).start,
  );
}

/** USR-001: the window's count is used up. */
export function rateLimitReached(settings: PushFatigueSettings, nowSeconds: number): ApiError {
  const { rateLimit } = settings;
  const window = rateWindow(rateLimit, nowSeconds);
  return new ApiError(
    'USR-001',
    `The user was sent ${rateLimit.count} requests in ${rateLimit.windowSeconds} seconds, the directory's limit`,
    {
      data: {
        retry_after: window.end - nowSeconds,
        limit: rateLimit.count,
        window_seconds: rateLimit.windowSeconds,
      },
    },
  );
}

/** Locks the user after a fraud denial, when the directory has the lock on. */
export async function lockAfterFraud(key: UserKey, nowSeconds: number): Promise<void> {
  const { fraudLockSeconds } = await getDirectorySettings(key.directoryId);
  if (fraudLockSeconds !== null)
    await lockUser(key.directoryId, key.identifier, nowSeconds + fraudLockSeconds);
}

/** A directory's settings as the admin CLI shows them. */
export interface DirectorySettingsView {
  readonly directory_id: string;
  readonly rate_limit: string;
  readonly fraud_lock: string;
  readonly web_linking: 'on' | 'off';
  readonly device_confirmation: 'on' | 'off';
  readonly cooling_off: string;
}

/**
 * Changes what is given (`--rate-limit <count>/<seconds>`, `--fraud-lock <seconds>|off`, `--web-linking on|off`) and
 * shows the result.
 */
export async function updateDirectorySettings(
  directoryId: string,
  changes: DirectorySettingsChanges,
  operator = 'admin-cli',
): Promise<DirectorySettingsView> {
  const organizationId = await requireDirectoryHead(directoryId);
  const current = await getDirectorySettings(directoryId);
  const updated: DirectorySettings = {
    rateLimit: changes.rateLimit === undefined ? current.rateLimit : parseRateLimit(changes.rateLimit),
    fraudLockSeconds:
      changes.fraudLock === undefined ? current.fraudLockSeconds : parseFraudLock(changes.fraudLock),
    webLinking: changes.webLinking === undefined ? current.webLinking : parseWebLinking(changes.webLinking),
    deviceConfirmation:
      changes.deviceConfirmation === undefined
        ? current.deviceConfirmation
        : parseOnOff(changes.deviceConfirmation, '--device-confirmation'),
    coolingOffSeconds:
      changes.coolingOff === undefined ? current.coolingOffSeconds : parseCoolingOff(changes.coolingOff),
  };
  if (Object.values(changes).some((change) => change !== undefined)) {
    await putDirectorySettings(directoryId, updated);
    // Settings that guard who may link and answer are the operator's changes of state: each is on the trail.
    await writeAuditRecord({
      organization_id: organizationId,
      time: new Date().toISOString(),
      request_id: randomUUID(),
      source_ip: 'admin-cli',
      actor_type: 'operator',
      actor_id: operator,
      operation: 'admin directory settings',
      directory_id: directoryId,
      target_id: Object.keys(changes)
        .filter((name) => changes[name as keyof DirectorySettingsChanges] !== undefined)
        .join(','),
      outcome: 'success',
      status: 200,
    });
  }
  return {
    directory_id: directoryId,
    rate_limit: `${updated.rateLimit.count}/${updated.rateLimit.windowSeconds}`,
    fraud_lock: updated.fraudLockSeconds === null ? 'off' : String(updated.fraudLockSeconds),
    web_linking: updated.webLinking ? 'on' : 'off',
    device_confirmation: updated.deviceConfirmation ? 'on' : 'off',
    cooling_off: updated.coolingOffSeconds === null ? 'off' : String(updated.coolingOffSeconds),
  };
}

/** What `directory settings` may change, each as the operator typed it. */
export interface DirectorySettingsChanges {
  readonly rateLimit?: string;
  readonly fraudLock?: string;
  readonly webLinking?: string;
  readonly deviceConfirmation?: string;
  readonly coolingOff?: string;
}

/** The directory's users that are locked now. */
export async function listLockedUsers(
  directoryId: string,
  now: Date,
): Promise<{ identifier: string; locked_until: string }[]> {
  await requireDirectoryHead(directoryId);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return (await listFraudLocks(directoryId))
    .filter((lock: FraudLock) => lock.lockedUntil > nowSeconds)
    .map((lock) => ({ identifier: lock.identifier, locked_until: isoTime(lock.lockedUntil) }));
}

/** Lifts a user's lock; throws when the user has none. */
export async function unlockUser(directoryId: string, identifier: string): Promise<void> {
  await requireDirectoryHead(directoryId);
  if (!(await clearFraudLock(directoryId, identifier)))
    throw new Error(`The user ${identifier} of directory ${directoryId} is not locked`);
}

/** Admin commands name a directory by id alone: it must exist. Its organization's id. */
export async function requireDirectoryHead(directoryId: string): Promise<string> {
  const head = await getHead({ type: 'dir', id: directoryId });
  if (!head) throw new Error(`There is no directory ${directoryId}`);
  return head.organizationId as string;
}

const isoTime = (epochSeconds: number) => isoSeconds(new Date(epochSeconds * 1000));
