import { describe, expect, it } from 'vitest';
import { insideTimeFence } from '#shared/authenticator/time-window';
import type { TimeFence } from '#shared/domain/policy/time-fences';

const window = (fields: Partial<TimeFence>): TimeFence => ({
  name: 'Office',
  days: ['Monday'],
  startHour: 9,
  startMinute: 0,
  endHour: 17,
  endMinute: 0,
  timezone: 'America/New_York',
  ...fields,
});

describe('insideTimeFence reads the window on the fence’s own clock', () => {
  it.each([
    // 2024-03-04 is a Monday; New York is on EST (UTC-5) until 10 March.
    ['09:00 EST, the first minute', '2024-03-04T14:00:00Z', true],
    ['08:59 EST', '2024-03-04T13:59:59Z', false],
    ['17:00:30 EST, inside the inclusive last minute', '2024-03-04T22:00:30Z', true],
    ['17:01 EST', '2024-03-04T22:01:00Z', false],
    ['09:00 on a Tuesday', '2024-03-05T14:00:00Z', false],
    // 2024-07-01 is a Monday on EDT (UTC-4): the same local window moves an hour in UTC.
    ['09:00 EDT', '2024-07-01T13:00:00Z', true],
    ['08:59 EDT, which would be 09:59 on standard time', '2024-07-01T12:59:00Z', false],
  ])('New York, Monday 09:00–17:00: %s', (_, instant, inside) => {
    expect(insideTimeFence(window({}), new Date(instant))).toBe(inside);
  });

  it.each([
    // Sunday 20:00 UTC is already Monday 01:30 in Kolkata (UTC+5:30).
    ['Asia/Kolkata', '2024-03-03T20:00:00Z', true],
    ['America/Los_Angeles', '2024-03-03T20:00:00Z', false],
    ['UTC', '2024-03-04T00:00:00Z', true],
  ])('the weekday is the local one (%s, %s)', (timezone, instant, inside) => {
    const allMonday = window({ timezone, startHour: 0, endHour: 23, endMinute: 59 });
    expect(insideTimeFence(allMonday, new Date(instant))).toBe(inside);
  });

  describe('a window whose end is before its start runs past midnight', () => {
    // Friday 22:00 to 02:00 London time; 2024-03-08 is a Friday, London on GMT.
    const night = window({
      days: ['Friday'],
      startHour: 22,
      startMinute: 0,
      endHour: 2,
      endMinute: 0,
      timezone: 'Europe/London',
    });

    it.each([
      ['Friday 23:00', '2024-03-08T23:00:00Z', true],
      ['Saturday 01:30, the morning after a listed day', '2024-03-09T01:30:00Z', true],
      ['Saturday 02:01', '2024-03-09T02:01:00Z', false],
      ['Saturday 22:30, not a listed day', '2024-03-09T22:30:00Z', false],
      ['Friday 01:30, the morning after Thursday', '2024-03-08T01:30:00Z', false],
      ['Monday 00:30, after Sunday wraps to Monday', '2024-03-11T00:30:00Z', false],
    ])('%s', (_, instant, inside) => {
      expect(insideTimeFence(night, new Date(instant))).toBe(inside);
    });

    it('wraps from Sunday to Monday', () => {
      const sunday = { ...night, days: ['Sunday' as const] };
      expect(insideTimeFence(sunday, new Date('2024-03-11T00:30:00Z'))).toBe(true);
    });
  });
});
