import { fail } from '#shared/domain/policy/reader';

/**
 * How large a policy may be: a service policy (`PUT .../service/policy`) and the `policy` of an authorization request
 * alike. Every refusal is SVC-002 naming the field and the limit. Real policies stay far below each bound; the bounds
 * exist so that a policy stays cheap to parse, merge, store and show: the service's and the request's policies end up
 * together on the authorization request item and in the device's list, which stay far below DynamoDB's 400 KB item
 * limit (about 26 KB of merged policy at most).
 */
export const policyLimits = {
  /**
   * The whole policy as compact JSON, in UTF-8 bytes, measured before it is parsed, so that a body of megabytes is
   * refused before any work. The largest policy the other bounds allow (every fence and time fence at its limit, each
   * name of 100 three-byte characters) takes about 15.7 KB in its stored normal form, which every authorization
   * request parses again, so that form always passes this bound too.
   */
  policyBytes: 16 * 1024,
  /**
   * Geofences of one policy: a COND_GEO's, METHOD_AMOUNT's or FACTORS' `fences`, a LEGACY geofence's `locations`, or
   * the flat LEGACY `fences`. A device checks each against its position for every request.
   */
  fences: 25,
  /** Time fences of one LEGACY policy (an authorization request takes none). A week has seven days. */
  timeFences: 10,
  /** A fence's or a time fence's name, in characters (UTF-16 code units): a label the device shows. */
  nameLength: 100,
  /** A TERRITORY fence's postal code, in characters: the longest postal codes in use have 10. */
  postalCodeLength: 16,
  /**
   * A circle's radius, in metres: half the equator, the farthest one place is from another along the surface, so a
   * larger circle holds no more of the world. Larger numbers (up to 1e308 in JSON) could not even be stored.
   */
  radiusMetres: 20_037_509,
} as const;

/**
 * Refuses a policy whose compact JSON is longer than `policyLimits.policyBytes`.
 *
 * @throws InvalidPolicyError naming `path` and the limit.
 */
export function requirePolicySize(value: unknown, path: string): void {
  if (jsonLongerThan(value, policyLimits.policyBytes)) {
    fail(path, `must be at most ${policyLimits.policyBytes} bytes as compact JSON`);
  }
}

/** Refuses a list longer than `max`, before any of its items is read. */
export function requireAtMost(list: readonly unknown[], max: number, path: string, what: string): void {
  if (list.length > max) fail(path, `holds ${list.length} ${what}, at most ${max} are allowed`);
}

/** Refuses a string longer than `max` characters. */
export function requireLength(text: string, max: number, path: string): void {
  if (text.length > max) fail(path, `must be at most ${max} characters`);
}

/**
 * Whether `value` written as compact JSON (`JSON.stringify`) takes more than `max` UTF-8 bytes. Counted without
 * writing it, and given up as soon as the count passes `max`: JSON.stringify would copy megabytes first, and overflow
 * the stack on a value nested a hundred thousand deep, where this takes at most `max` steps.
 */
export function jsonLongerThan(value: unknown, max: number): boolean {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    bytes += ownBytes(pending.pop(), max - bytes, pending);
    if (bytes > max) return true;
  }
  return false;
}

/** The bytes `value` adds besides its members, which it pushes to `pending`; more than `room` once it is too long. */
function ownBytes(value: unknown, room: number, pending: unknown[]): number {
  if (typeof value === 'string') return stringBytes(value, room);
  if (Array.isArray(value)) {
    // Brackets and commas; the members follow.
    const bytes = 2 + Math.max(0, value.length - 1);
    if (bytes <= room) pending.push(...(value as unknown[]));
    return bytes;
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    let bytes = 2 + Math.max(0, keys.length - 1) + keys.length;
    for (const key of keys) {
      if (bytes > room) return bytes;
      bytes += stringBytes(key, room - bytes);
      pending.push((value as Record<string, unknown>)[key]);
    }
    return bytes;
  }
  // Numbers, booleans and null as JSON.stringify writes them (a non-finite number as null).
  return (JSON.stringify(value) ?? 'null').length;
}

/** A string's bytes as a JSON literal; a string is never shorter in UTF-8 than in UTF-16 code units. */
function stringBytes(text: string, room: number): number {
  if (text.length + 2 > room) return text.length + 2;
  return Buffer.byteLength(JSON.stringify(text));
}
