/**
 * A directory's protections against push fatigue (docs/protocol.md#limits): how many requests one user may be sent in a
 * window, and how long a user stays locked after denying one as fraud. They are the operator's settings, kept apart
 * from the directory object the SDKs read, which they never change.
 */
export interface RateLimit {
  /** Requests per user per window. */
  readonly count: number;
  readonly windowSeconds: number;
}

export interface PushFatigueSettings {
  readonly rateLimit: RateLimit;
  /** Seconds a user is locked after a fraud denial; null (the default) leaves the lock off. */
  readonly fraudLockSeconds: number | null;
}

/**
 * 30 requests per user per 10 minutes: one prompt every 20 seconds on average. A person signs in a few times an hour,
 * so this leaves room for retries, several applications and scripted end-to-end tests of an integration, while a
 * script that re-asks the moment each prompt is dismissed — push bombing — is stopped within the first minutes and
 * cannot prompt more than 30 times per window. Directories that want less (or more) set their own.
 */
export const defaultRateLimit: RateLimit = { count: 30, windowSeconds: 600 };

export const defaultPushFatigueSettings: PushFatigueSettings = {
  rateLimit: defaultRateLimit,
  fraudLockSeconds: null,
};

/**
 * All of a directory's operator settings: the protections above, and whether a device may link with its linking code
 * alone, as the web authenticator does (docs/protocol.md#device-api). The code is the single-use secret either way;
 * a directory whose devices all link through its own app and SDK key may want nothing else to link.
 */
export interface DirectorySettings extends PushFatigueSettings {
  readonly webLinking: boolean;
  /**
   * Whether a further device of a user waits for one of the user's linked devices to confirm it, and a device linked
   * soon after the user's linked devices were unlinked waits out the cooling-off (docs/protocol.md#device-confirmation).
   */
  readonly deviceConfirmation: boolean;
  /** Seconds after an application unlinked a user's linked device during which a new device cannot answer; null: none. */
  readonly coolingOffSeconds: number | null;
}

/** Three days: long enough for a user told that their devices were unlinked to notice and call the operator. */
export const defaultCoolingOffSeconds = 3 * 86_400;
export const maxCoolingOffSeconds = 30 * 86_400;

export const defaultDirectorySettings: DirectorySettings = {
  ...defaultPushFatigueSettings,
  webLinking: true,
  deviceConfirmation: true,
  coolingOffSeconds: defaultCoolingOffSeconds,
};

/** Reads `on` or `off` for the option named. */
export function parseOnOff(text: string, option: string): boolean {
  const value = text.trim();
  if (value !== 'on' && value !== 'off') throw new Error(`${option} must be on or off`);
  return value === 'on';
}

/** Reads a cooling-off in seconds, or `off`. */
export function parseCoolingOff(text: string): number | null {
  if (text.trim() === 'off') return null;
  const seconds = /^\d{1,8}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(seconds >= 60 && seconds <= maxCoolingOffSeconds))
    throw new Error(`--cooling-off must be off or 60 to ${maxCoolingOffSeconds} seconds`);
  return seconds;
}

/** Reads `on` or `off`. */
export function parseWebLinking(text: string): boolean {
  const value = text.trim();
  if (value !== 'on' && value !== 'off') throw new Error('--web-linking must be on or off');
  return value === 'on';
}

/** Bounds an operator may set: at least one request per window, windows from a minute to a day, locks up to 30 days. */
export const rateLimitBounds = { maxCount: 10_000, minWindow: 60, maxWindow: 86_400 } as const;
export const maxFraudLockSeconds = 30 * 86_400;

/** Reads `<count>/<seconds>` (e.g. `20/600`); throws a message naming the bound it breaks. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  if (!match) throw new Error(`--rate-limit must be <count>/<seconds>, e.g. 20/600`);
  const count = Number(match[1]);
  const windowSeconds = Number(match[2]);
  if (count < 1 || count > rateLimitBounds.maxCount)
    throw new Error(`The rate limit's count must be 1 to ${rateLimitBounds.maxCount}`);
  if (windowSeconds < rateLimitBounds.minWindow || windowSeconds > rateLimitBounds.maxWindow)
    throw new Error(
      `The rate limit's window must be ${rateLimitBounds.minWindow} to ${rateLimitBounds.maxWindow} seconds`,
    );
  return { count, windowSeconds };
}

/** Reads a lock duration in seconds, or `off`. */
export function parseFraudLock(text: string): number | null {
  if (text.trim() === 'off') return null;
  const seconds = /^\d{1,8}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(seconds >= 60 && seconds <= maxFraudLockSeconds))
    throw new Error(`--fraud-lock must be off or 60 to ${maxFraudLockSeconds} seconds`);
  return seconds;
}

/**
 * The fixed window `nowSeconds` falls in: windows start at multiples of their length, so every create for a user in
 * one window counts on one counter without coordination.
 */
export function rateWindow(limit: RateLimit, nowSeconds: number): { start: number; end: number } {
  const start = nowSeconds - (nowSeconds % limit.windowSeconds);
  return { start, end: start + limit.windowSeconds };
}
