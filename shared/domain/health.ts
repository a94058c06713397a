/**
 * The console's health figures (docs/console.md#health): counters kept per organization in fixed time buckets, and a
 * fixed histogram of latencies, so that each event is one counter increment (no read before the write) and a
 * percentile is read back from the counts.
 */
import { answerOutcome, type AuthRequest, authRequestState } from '#shared/domain/auth-request';

/** How long a bucket is. */
export const healthBucketSeconds = 300;

/** How long a bucket is kept before the table purges it. */
export const healthRetentionSeconds = 8 * 24 * 3600;

/** The longest range the console reads at once. */
export const maxHealthHours = 7 * 24;

/** The most organizations the operator's deployment-wide view reads, each in at most a few pages. */
export const maxHealthOrganizations = 25;

/** The upper bounds (ms, inclusive) of the latency histogram's buckets; a last bucket takes everything above. */
export const latencyBoundsMs: readonly number[] = [
  25, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10_000, 30_000, 60_000, 120_000, 300_000,
];

export const pushProviderNames = ['webpush', 'apns', 'fcm'] as const;
export type PushProviderName = (typeof pushProviderNames)[number];

/**
 * Where an auth request ended, as health counts it. A device's answer is sealed to the requester, so the service
 * cannot tell an approval from a denial: `answered` is either, `denied` only a denial the service sees (said in the
 * clear, or reported as fraud). `failed`: ended by wrong number-matching codes.
 */
export const authOutcomes = ['answered', 'denied', 'failed', 'expired', 'cancelled'] as const;
export type AuthOutcome = (typeof authOutcomes)[number];

/** How a request that is over counts: its outcome, when it ended (epoch ms) and, for a user's answer, the time to it. */
export interface AuthEnd {
  readonly outcome: AuthOutcome;
  readonly endedAtMs: number;
  readonly latencyMs: number | undefined;
}

/**
 * How an auth request counts once it is over, read from its record; none while it is pending, or for a request that
 * lost the create's race (void). A cancellation keeps no time of its own: it counts at `nowMs`.
 */
export function authEnd(auth: AuthRequest, nowMs: number): AuthEnd | undefined {
  const state = authRequestState(auth, Math.floor(nowMs / 1000));
  if (state === 'pending' || state === 'void') return undefined;
  if (auth.numberMatchFailed) {
    const endedAtMs = auth.answer ? Date.parse(auth.answer.answeredAt) : nowMs;
    return { outcome: 'failed', endedAtMs, latencyMs: undefined };
  }
  if (state === 'expired')
    return { outcome: 'expired', endedAtMs: auth.expiresAt * 1000, latencyMs: undefined };
  if (state === 'cancelled' || !auth.answer)
    return { outcome: 'cancelled', endedAtMs: nowMs, latencyMs: undefined };
  const endedAtMs = Date.parse(auth.answer.answeredAt);
  return {
    outcome: answerOutcome(auth.answer),
    endedAtMs,
    latencyMs: Math.max(0, endedAtMs - Date.parse(auth.created)),
  };
}

/** The start (epoch seconds) of the bucket a moment falls in. */
export function bucketStart(epochSeconds: number): number {
  return Math.floor(epochSeconds / healthBucketSeconds) * healthBucketSeconds;
}

/** The index of the histogram bucket a latency falls in. */
export function latencyBucket(ms: number): number {
  const at = latencyBoundsMs.findIndex((bound) => ms <= bound);
  return at === -1 ? latencyBoundsMs.length : at;
}

/** Adds histograms bucket by bucket (they may be of different lengths: a missing bucket counts 0). */
export function addHistograms(...histograms: readonly (readonly number[])[]): number[] {
  const length = Math.max(0, ...histograms.map((histogram) => histogram.length));
  return Array.from({ length }, (_, index) =>
    histograms.reduce((sum, histogram) => sum + (histogram[index] ?? 0), 0),
  );
}

/**
 * The `q` quantile (0 < q ≤ 1) of a histogram, as the upper bound of the bucket it falls in: an upper estimate, never
 * below the true value. A quantile in the last, unbounded bucket is reported as its lower bound, marked `above`. None
 * for an empty histogram.
 */
export function histogramQuantile(
  histogram: readonly number[],
  q: number,
): { readonly ms: number; readonly above: boolean } | null {
  if (!(q > 0 && q <= 1)) throw new RangeError(`A quantile is in (0, 1], not ${q}`);
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total <= 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const [index, count] of histogram.entries()) {
    seen += count;
    if (seen >= rank) {
      const bound = latencyBoundsMs[index];
      return bound === undefined
        ? { ms: latencyBoundsMs[latencyBoundsMs.length - 1] ?? 0, above: true }
        : { ms: bound, above: false };
    }
  }
  return null;
}

/** A range of buckets ending at `now`: `hours` long, at most `maxHealthHours`. */
export function healthRange(now: Date, hours: number): { readonly from: number; readonly to: number } {
  const bounded = Math.min(maxHealthHours, Math.max(1, Math.floor(hours)));
  const to = bucketStart(Math.floor(now.getTime() / 1000));
  return { from: to - bounded * 3600 + healthBucketSeconds, to };
}
