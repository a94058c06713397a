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
   * Factors proven to the service (docs/protocol.md#proven-factors): where a request's policy asks for inherence, only
   * an answer with a verified passkey assertion (user verification on) may approve. Off by default: a device's own
   * report of its biometric check is what LaunchKey's apps gave, and what an application key could forge.
   */
  readonly provenFactors: boolean;
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
  provenFactors: false,
  deviceConfirmation: true,
  coolingOffSeconds: defaultCoolingOffSeconds,
};

/** Reads a cooling-off in seconds, or `off`. */
export function parseCoolingOff(text: string): number | null {
  if (text.trim() === 'off') return null;
  const seconds = /^\d{1,8}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(seconds >= 60 && seconds <= maxCoolingOffSeconds))
    throw new Error(`--cooling-off must be off or 60 to ${maxCoolingOffSeconds} seconds`);
  return seconds;
}

/** Reads an `on|off` option, named in the error. */
export function parseSwitch(option: string, text: string): boolean {
  const value = text.trim();
  if (value !== 'on' && value !== 'off') throw new Error(`--${option} must be on or off`);
  return value === 'on';
}

export const parseWebLinking = (text: string): boolean => parseSwitch('web-linking', text);

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

/** A user's counter as stored: the requests of the latest window it counted in, and of the window before that. */
export interface StoredRequestCounts {
  readonly windowStart: number;
  readonly windowSeconds: number;
  readonly requests: number;
  readonly previousRequests: number;
}

/** The requests of the window `nowSeconds` falls in and of the one before, from the stored counter. */
export interface RequestCounts {
  readonly window: { readonly start: number; readonly end: number };
  readonly current: number;
  readonly previous: number;
}

export function requestCounts(
  limit: RateLimit,
  stored: StoredRequestCounts | undefined,
  nowSeconds: number,
): RequestCounts {
  const window = rateWindow(limit, nowSeconds);
  // Counted under another window length: windows that no longer line up say nothing.
  if (!stored || stored.windowSeconds !== limit.windowSeconds) return { window, current: 0, previous: 0 };
  if (stored.windowStart === window.start)
    return { window, current: stored.requests, previous: stored.previousRequests };
  if (stored.windowStart === window.start - limit.windowSeconds)
    return { window, current: 0, previous: stored.requests };
  return { window, current: 0, previous: 0 };
}

/**
 * How many requests the current window may count at `nowSeconds`: a sliding window estimated from two fixed ones,
 * the previous window's requests weighted by the share of it still inside the last `windowSeconds`. A request is
 * made while the estimate, counting it, stays within the limit: `current + 1 + previous × weight ≤ count`. So a
 * burst at the end of a window holds the next one back until the burst slides out, where fixed windows let a second
 * burst through at once.
 */
export function requestAllowance(limit: RateLimit, previous: number, nowSeconds: number): number {
  const { windowSeconds } = limit;
  const remaining = windowSeconds - (nowSeconds % windowSeconds);
  // ceil(previous × remaining / windowSeconds), in integers.
  return limit.count - Math.floor((previous * remaining + windowSeconds - 1) / windowSeconds);
}

/** Whether a new request fits the limit now. */
export function mayRequest(limit: RateLimit, counts: RequestCounts, nowSeconds: number): boolean {
  return counts.current < requestAllowance(limit, counts.previous, nowSeconds);
}

/**
 * Seconds from `nowSeconds` until a new request fits the limit, if none is made meanwhile: later in this window, as the
 * previous window's weight falls, or in the next one, where this window's requests weigh in turn (or in the one after,
 * once they make the limit alone).
 */
export function secondsUntilAllowed(limit: RateLimit, counts: RequestCounts, nowSeconds: number): number {
  const { windowSeconds: w, count } = limit;
  const elapsed = nowSeconds - counts.window.start;
  // In this window, the first second at which ceil(previous × (w − e) / w) ≤ count − current − 1.
  const room = count - counts.current - 1;
  if (room >= 0) {
    const at = counts.previous === 0 ? 0 : w - Math.floor((room * w) / counts.previous);
    if (at < w) return Math.max(1, at - elapsed);
  }
  // In the next window this one is the previous, and nothing is counted yet.
  const next = counts.current === 0 ? 0 : Math.max(0, w - Math.floor(((count - 1) * w) / counts.current));
  return counts.window.end - nowSeconds + next;
}
