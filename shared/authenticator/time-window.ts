import { type DayName, dayNames, type TimeFence } from '#shared/domain/policy/time-fences';

interface LocalTime {
  readonly day: DayName;
  /** Minutes since local midnight. */
  readonly minute: number;
}

function localTime(now: Date, timezone: string): LocalTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    weekday: 'long',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    day: part('weekday') as DayName,
    minute: Number(part('hour')) * 60 + Number(part('minute')),
  };
}

function previousDay(day: DayName): DayName {
  const index = dayNames.indexOf(day);
  return dayNames[(index + dayNames.length - 1) % dayNames.length] as DayName;
}

/**
 * Whether `now` falls in the window, read on the fence's own clock (its IANA zone, daylight saving included).
 * Both ends are whole minutes and inclusive, so 00:00–23:59 is the whole day and 09:00–17:00 still admits 17:00:30.
 * An end before the start runs past midnight: the window opens on a listed day and closes the next morning.
 */
export function insideTimeFence(fence: TimeFence, now: Date): boolean {
  const { day, minute } = localTime(now, fence.timezone);
  const start = fence.startHour * 60 + fence.startMinute;
  const end = fence.endHour * 60 + fence.endMinute;
  if (start <= end) return fence.days.includes(day) && start <= minute && minute <= end;
  return (
    (fence.days.includes(day) && minute >= start) || (fence.days.includes(previousDay(day)) && minute <= end)
  );
}
