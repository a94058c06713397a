import { describe, expect, it } from 'vitest';
import type { AuthAnswer, AuthRequest } from '#shared/domain/auth-request';
import {
  addHistograms,
  authEnd,
  bucketStart,
  healthBucketSeconds,
  healthRange,
  histogramQuantile,
  latencyBoundsMs,
  latencyBucket,
  maxHealthHours,
} from '#shared/domain/health';

const histogramOf = (latencies: number[]): number[] => {
  const histogram = new Array<number>(latencyBoundsMs.length + 1).fill(0);
  for (const ms of latencies) histogram[latencyBucket(ms)] = (histogram[latencyBucket(ms)] ?? 0) + 1;
  return histogram;
};

describe('health histograms', () => {
  it('puts a latency in the first bucket whose bound holds it, bounds inclusive', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(25)).toBe(0);
    expect(latencyBucket(26)).toBe(1);
    expect(latencyBucket(1000)).toBe(latencyBoundsMs.indexOf(1000));
    expect(latencyBucket(10 ** 9)).toBe(latencyBoundsMs.length);
  });

  it('reads p95 as the bound of the bucket the 95th percentile falls in', () => {
    // 95 fast pushes and 5 slow ones: the 95th of 100 is still fast.
    const latencies = [...new Array<number>(95).fill(40), ...new Array<number>(5).fill(2500)];
    expect(histogramQuantile(histogramOf(latencies), 0.95)).toEqual({ ms: 50, above: false });
    // One more slow one and the 95th of 101 (rank 96) is slow.
    expect(histogramQuantile(histogramOf([...latencies, 2500]), 0.95)).toEqual({ ms: 3000, above: false });
  });

  it('reads the median and a single sample', () => {
    expect(histogramQuantile(histogramOf([10, 90, 90, 400, 800]), 0.5)).toEqual({ ms: 100, above: false });
    expect(histogramQuantile(histogramOf([180]), 0.95)).toEqual({ ms: 200, above: false });
  });

  it('says a quantile beyond the last bound is above it', () => {
    expect(histogramQuantile(histogramOf([10 ** 7]), 0.95)).toEqual({
      ms: latencyBoundsMs[latencyBoundsMs.length - 1],
      above: true,
    });
  });

  it('has no quantile for no samples, and refuses a quantile outside (0, 1]', () => {
    expect(histogramQuantile([], 0.95)).toBeNull();
    expect(histogramQuantile([0, 0, 0], 0.5)).toBeNull();
    expect(() => histogramQuantile([1], 0)).toThrow(RangeError);
    expect(() => histogramQuantile([1], 1.5)).toThrow(RangeError);
  });

  it('adds histograms of different lengths bucket by bucket', () => {
    expect(addHistograms([1, 2], [0, 1, 5], [])).toEqual([1, 3, 5]);
    expect(addHistograms()).toEqual([]);
  });
});

describe('health buckets and ranges', () => {
  it('starts a bucket on a multiple of its length', () => {
    expect(bucketStart(healthBucketSeconds * 7 + 12)).toBe(healthBucketSeconds * 7);
    expect(bucketStart(healthBucketSeconds * 7)).toBe(healthBucketSeconds * 7);
  });

  it('covers the hours asked, ending with the current bucket, and never more than the most it reads', () => {
    const now = new Date(Date.UTC(2026, 0, 10, 12, 7, 30));
    const day = healthRange(now, 24);
    expect(day.to).toBe(Date.UTC(2026, 0, 10, 12, 5) / 1000);
    expect((day.to - day.from) / healthBucketSeconds + 1).toBe(24 * 12);
    const long = healthRange(now, 10_000);
    expect((long.to - long.from) / healthBucketSeconds + 1).toBe(maxHealthHours * 12);
    const short = healthRange(now, 0);
    expect((short.to - short.from) / healthBucketSeconds + 1).toBe(12);
  });
});

describe('how an auth request that is over counts', () => {
  const created = Date.UTC(2026, 0, 10, 12, 0, 0);
  const expiresAt = created / 1000 + 300;
  const request = (fields: Partial<AuthRequest>): AuthRequest =>
    ({
      id: 'a',
      organizationId: 'o',
      status: 'PENDING',
      created: new Date(created).toISOString(),
      expiresAt,
      answer: undefined,
      ...fields,
    }) as AuthRequest;
  const answer = (afterSeconds: number, fields: Partial<AuthAnswer> = {}): AuthAnswer => ({
    deviceId: 'd',
    authJwe: 'sealed',
    auth: null,
    authV1: null,
    answeredAt: new Date(created + afterSeconds * 1000).toISOString(),
    ...fields,
  });
  const later = (expiresAt + 1) * 1000;

  it('counts nothing while pending, or for a request that lost the create’s race', () => {
    expect(authEnd(request({}), created + 1000)).toBeUndefined();
    expect(authEnd(request({ status: 'VOID' }), later)).toBeUndefined();
  });

  it('counts a sealed answer as answered and a denial the service sees as denied, each with the time to it', () => {
    expect(authEnd(request({ status: 'ANSWERED', answer: answer(7) }), later)).toEqual({
      outcome: 'answered',
      endedAtMs: created + 7000,
      latencyMs: 7000,
    });
    const clear = answer(3, { clearDenial: { denialReason: null, fraud: false } });
    expect(authEnd(request({ status: 'ANSWERED', answer: clear }), later)).toMatchObject({
      outcome: 'denied',
      latencyMs: 3000,
    });
    expect(authEnd(request({ status: 'ANSWERED', answer: answer(2, { fraud: true }) }), later)).toMatchObject(
      {
        outcome: 'denied',
        latencyMs: 2000,
      },
    );
  });

  it('counts wrong codes as failed, an expiry at its time and a cancellation when it is seen, none with a latency', () => {
    expect(
      authEnd(request({ status: 'ANSWERED', numberMatchFailed: true, answer: answer(9) }), later),
    ).toEqual({ outcome: 'failed', endedAtMs: created + 9000, latencyMs: undefined });
    expect(authEnd(request({ status: 'CANCELLED', numberMatchFailed: true }), later)).toEqual({
      outcome: 'failed',
      endedAtMs: later,
      latencyMs: undefined,
    });
    expect(authEnd(request({}), later)).toEqual({
      outcome: 'expired',
      endedAtMs: expiresAt * 1000,
      latencyMs: undefined,
    });
    expect(authEnd(request({ status: 'CANCELLED' }), later)).toEqual({
      outcome: 'cancelled',
      endedAtMs: later,
      latencyMs: undefined,
    });
  });
});
