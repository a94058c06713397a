import { describe, expect, it } from 'vitest';
import {
  mayRequest,
  type RateLimit,
  requestCounts,
  secondsUntilAllowed,
  type StoredRequestCounts,
} from '#shared/domain/push-fatigue';

const limit: RateLimit = { count: 30, windowSeconds: 600 };
const windowStart = 1_800_000_000 - (1_800_000_000 % 600);

/** Sends as many requests as the limit lets through at each second of `seconds`, counting as the store would. */
function sendAtEachSecond(seconds: readonly number[], start?: StoredRequestCounts) {
  let stored = start;
  let sent = 0;
  for (const now of seconds) {
    for (;;) {
      const counts = requestCounts(limit, stored, now);
      if (!mayRequest(limit, counts, now)) break;
      stored = {
        windowStart: counts.window.start,
        windowSeconds: limit.windowSeconds,
        requests: counts.current + 1,
        previousRequests: counts.previous,
      };
      sent++;
    }
  }
  return { sent, stored };
}

describe('the rate limit per user, a sliding window', () => {
  it('lets a burst at the end of a window hold the next window back', () => {
    const before = sendAtEachSecond([windowStart + 590]);
    expect(before.sent).toBe(30);
    // Fixed windows would let 30 more through here: 60 prompts in 20 seconds.
    const after = sendAtEachSecond([windowStart + 600, windowStart + 601, windowStart + 610], before.stored);
    expect(after.sent).toBe(0);
  });

  it('lets requests back in as the burst slides out, one per 20 seconds at 30 per 10 minutes', () => {
    const burst = sendAtEachSecond([windowStart + 599]);
    const seconds = Array.from({ length: 600 }, (_, second) => windowStart + 600 + second);
    const { sent } = sendAtEachSecond(seconds, burst.stored);
    // The burst's weight falls by one every 20 seconds.
    expect(sent).toBe(29);
  });

  it('never lets more than the limit through in any 10 minutes when requests come one per second', () => {
    const seconds = Array.from({ length: 3000 }, (_, second) => windowStart + second);
    let stored: StoredRequestCounts | undefined;
    const times: number[] = [];
    for (const now of seconds) {
      const counts = requestCounts(limit, stored, now);
      if (!mayRequest(limit, counts, now)) continue;
      stored = {
        windowStart: counts.window.start,
        windowSeconds: 600,
        requests: counts.current + 1,
        previousRequests: counts.previous,
      };
      times.push(now);
    }
    for (const [index, time] of times.entries()) {
      const inWindow = times.slice(index).filter((other) => other < time + 600);
      expect(inWindow.length).toBeLessThanOrEqual(limit.count);
    }
  });

  it('forgets counts of older windows and of another window length', () => {
    const stored = { windowStart, windowSeconds: 600, requests: 30, previousRequests: 30 };
    expect(requestCounts(limit, stored, windowStart + 1200)).toMatchObject({ current: 0, previous: 0 });
    expect(requestCounts({ count: 30, windowSeconds: 60 }, stored, windowStart + 10)).toMatchObject({
      current: 0,
      previous: 0,
    });
    expect(requestCounts(limit, stored, windowStart + 700)).toMatchObject({ current: 0, previous: 30 });
  });

  it.each([
    ['this window, as the previous one weighs less', 30, 600, 10, 30, 300],
    ['this window, with a small burst before', 30, 600, 30, 5, 5],
    ['the next window, when this one is full', 30, 600, 0, 30, 450],
    ['the window after next, when one request is the limit', 1, 60, 0, 1, 30],
    ['this window, at 3 per minute', 3, 60, 3, 1, 10],
  ])('says when the next request fits: %s', (_, count, windowSeconds, previous, current, elapsed) => {
    const rate: RateLimit = { count, windowSeconds };
    const start = windowStart - (windowStart % windowSeconds);
    const stored = { windowStart: start, windowSeconds, requests: current, previousRequests: previous };
    const now = start + elapsed;
    expect(mayRequest(rate, requestCounts(rate, stored, now), now)).toBe(false);
    const wait = secondsUntilAllowed(rate, requestCounts(rate, stored, now), now);
    // The first second at which a request fits, found by trying each.
    let first = 1;
    while (!mayRequest(rate, requestCounts(rate, stored, now + first), now + first)) first++;
    expect(wait).toBe(first);
  });
});
