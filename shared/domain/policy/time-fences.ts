import { policyLimits, requireAtMost, requireLength } from '#shared/domain/policy/limits';
import {
  child,
  fail,
  get,
  item,
  readArray,
  readInteger,
  readObject,
  readText,
} from '#shared/domain/policy/reader';
import { quote } from '#shared/echo';

/** JV `LegacyPolicy.Day` matches these exactly (anything else throws); PY lower-cases them into keyword arguments. */
export const dayNames = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;
export type DayName = (typeof dayNames)[number];

/** A window of the week in which a LEGACY policy allows authorization. */
export interface TimeFence {
  readonly name: string;
  /** In the order the caller gave them; no duplicates. */
  readonly days: readonly DayName[];
  readonly startHour: number;
  readonly startMinute: number;
  readonly endHour: number;
  readonly endMinute: number;
  /** IANA zone id, in ICU's canonical spelling. */
  readonly timezone: string;
}

const timeFenceKeys = [
  'name',
  'days',
  'start hour',
  'start minute',
  'end hour',
  'end minute',
  'timezone',
] as const;
// Zone ids only: Intl also takes offsets such as "+01:00", which pytz and java.util.TimeZone do not.
const zonePattern = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * A time fence as PY's TimeFence, JV's TimeFence and PY's flat `time_restrictions` send it. Every key is required:
 * both SDKs read them all unconditionally and fail on a missing one.
 */
export function parseTimeFence(value: unknown, path: string): TimeFence {
  const object = readObject(value, path, timeFenceKeys);
  const name = readText(get(object, 'name'), child(path, 'name'));
  requireLength(name, policyLimits.nameLength, child(path, 'name'));
  return {
    name,
    days: parseDays(get(object, 'days'), child(path, 'days')),
    startHour: readInteger(get(object, 'start hour'), child(path, 'start hour'), 0, 23),
    startMinute: readInteger(get(object, 'start minute'), child(path, 'start minute'), 0, 59),
    endHour: readInteger(get(object, 'end hour'), child(path, 'end hour'), 0, 23),
    endMinute: readInteger(get(object, 'end minute'), child(path, 'end minute'), 0, 59),
    timezone: parseTimezone(get(object, 'timezone'), child(path, 'timezone')),
  };
}

/** Refuses more time fences than a policy may hold, before any of them is read. */
export function requireTimeFenceCount(fences: readonly unknown[], path: string): void {
  requireAtMost(fences, policyLimits.timeFences, path, 'time fences');
}

function parseDays(value: unknown, path: string): DayName[] {
  const days = readArray(value, path);
  if (days.length === 0) fail(path, 'must name at least one day');
  const seen = new Set<string>();
  return days.map((day, index) => {
    if (typeof day !== 'string' || !(dayNames as readonly string[]).includes(day)) {
      const problem = typeof day === 'string' ? `unknown day ${quote(day)}` : 'must be a day name';
      return fail(item(path, index), `${problem}, must be one of ${dayNames.join(', ')}`);
    }
    if (seen.has(day)) fail(item(path, index), `duplicate day ${quote(day)}`);
    seen.add(day);
    return day as DayName;
  });
}

/**
 * Validates with Intl and stores ICU's canonical id. Case matters downstream: java.util.TimeZone silently falls back
 * to GMT for an id it does not know ("america/new_york"), so a fence would move by hours; ICU's canonical ids are the
 * long-standing ones that both pytz and Java know.
 */
function parseTimezone(value: unknown, path: string): string {
  if (typeof value !== 'string' || !zonePattern.test(value)) {
    return fail(path, 'must be an IANA time zone name such as "America/New_York"');
  }
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return fail(path, `unknown time zone ${quote(value)}, must be an IANA time zone name`);
  }
}

export function printTimeFence(fence: TimeFence): Record<string, unknown> {
  return {
    name: fence.name,
    days: [...fence.days],
    'start hour': fence.startHour,
    'start minute': fence.startMinute,
    'end hour': fence.endHour,
    'end minute': fence.endMinute,
    timezone: fence.timezone,
  };
}
