import { recordOperatorAction } from '#shared/audit/operator-action-record';
import {
  type DirectorySettings,
  parseCoolingOff,
  parseFraudLock,
  parseRateLimit,
  parseSwitch,
  parseWebLinking,
} from '#shared/domain/push-fatigue';
import { type OperatorOrConsoleAdmin, refuseForeignDirectory } from '#shared/use-cases/console-scope';
import { getHead } from '#shared/store/heads';
import {
  clearFraudLock,
  type FraudLock,
  getDirectorySettings,
  listFraudLocks,
  putDirectorySettings,
} from '#shared/store/push-fatigue';
import { isoSeconds } from '#shared/time';

// The operator's side of a directory's settings (the admin CLI), apart from the checks every create and answer runs,
// so that those functions' bundles carry no audit writer.

/** A directory's settings as the admin CLI shows them. */
export interface DirectorySettingsView {
  readonly directory_id: string;
  readonly rate_limit: string;
  readonly fraud_lock: string;
  readonly web_linking: 'on' | 'off';
  readonly proven_factors: 'on' | 'off';
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
  by: OperatorOrConsoleAdmin = { operator: 'admin-cli' },
): Promise<DirectorySettingsView> {
  const organizationId = await requireDirectoryHead(directoryId);
  refuseForeignDirectory(by, organizationId, directoryId);
  const current = await getDirectorySettings(directoryId);
  const updated: DirectorySettings = {
    rateLimit: changes.rateLimit === undefined ? current.rateLimit : parseRateLimit(changes.rateLimit),
    fraudLockSeconds:
      changes.fraudLock === undefined ? current.fraudLockSeconds : parseFraudLock(changes.fraudLock),
    webLinking: changes.webLinking === undefined ? current.webLinking : parseWebLinking(changes.webLinking),
    provenFactors:
      changes.provenFactors === undefined
        ? current.provenFactors
        : parseSwitch('proven-factors', changes.provenFactors),
    deviceConfirmation:
      changes.deviceConfirmation === undefined
        ? current.deviceConfirmation
        : parseSwitch('device-confirmation', changes.deviceConfirmation),
    coolingOffSeconds:
      changes.coolingOff === undefined ? current.coolingOffSeconds : parseCoolingOff(changes.coolingOff),
  };
  const options = settingOptions(changes);
  if (options.length > 0) {
    await putDirectorySettings(directoryId, updated);
    // Settings that guard who may link and answer are the operator's changes of state: each is on the trail.
    if ('operator' in by)
      await recordOperatorAction(
        {
          organizationId,
          directoryId,
          actor: by.operator,
          operation: `admin directory settings ${options.join(' ')}`,
        },
        new Date(),
      );
  }
  return {
    directory_id: directoryId,
    rate_limit: `${updated.rateLimit.count}/${updated.rateLimit.windowSeconds}`,
    fraud_lock: updated.fraudLockSeconds === null ? 'off' : String(updated.fraudLockSeconds),
    web_linking: updated.webLinking ? 'on' : 'off',
    proven_factors: updated.provenFactors ? 'on' : 'off',
    device_confirmation: updated.deviceConfirmation ? 'on' : 'off',
    cooling_off: updated.coolingOffSeconds === null ? 'off' : String(updated.coolingOffSeconds),
  };
}

/** A directory's settings as they stand (the console shows its rate limit and fraud lock). */
export async function directorySettings(directoryId: string): Promise<DirectorySettings> {
  await requireDirectoryHead(directoryId);
  return getDirectorySettings(directoryId);
}

/** What `directory settings` may change, each as the operator typed it. */
export interface DirectorySettingsChanges {
  readonly rateLimit?: string;
  readonly fraudLock?: string;
  readonly webLinking?: string;
  readonly provenFactors?: string;
  readonly deviceConfirmation?: string;
  readonly coolingOff?: string;
}

/** The options a settings change gave, as the audit trail names them: `--proven-factors on`. */
function settingOptions(changes: DirectorySettingsChanges): string[] {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `--${name.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`)} ${value}`);
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
export async function unlockUser(
  directoryId: string,
  identifier: string,
  operator = 'admin-cli',
): Promise<void> {
  const organizationId = await requireDirectoryHead(directoryId);
  if (!(await liftFraudLock(directoryId, identifier)))
    throw new Error(`The user ${identifier} of directory ${directoryId} is not locked`);
  await recordOperatorAction(
    { organizationId, directoryId, actor: operator, user: identifier, operation: 'admin locks clear' },
    new Date(),
  );
}

/**
 * Lifts a user's lock, whoever asks: false when there was none. The caller records it: the admin CLI as the
 * operator's action, the console's pipeline as the admin's.
 */
export function liftFraudLock(directoryId: string, identifier: string): Promise<boolean> {
  return clearFraudLock(directoryId, identifier);
}

/** Admin commands name a directory by id alone: it must exist. Its organization's id. */
export async function requireDirectoryHead(directoryId: string): Promise<string> {
  const head = await getHead({ type: 'dir', id: directoryId });
  if (!head) throw new Error(`There is no directory ${directoryId}`);
  return head.organizationId as string;
}

const isoTime = (epochSeconds: number) => isoSeconds(new Date(epochSeconds * 1000));
