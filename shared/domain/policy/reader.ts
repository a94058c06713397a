import { displayTextProblem } from '#shared/domain/display-text';
import { InvalidPolicyError } from '#shared/domain/policy/errors';
import { echoLength, quote } from '#shared/echo';

/** A JSON object as the parser sees it: only its own keys are ever read. */
export type JsonObject = Readonly<Record<string, unknown>>;

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `policy.factors` + `attributes` → `policy.factors.attributes`; odd or long keys go quoted in brackets. */
export function child(path: string, key: string): string {
  return identifier.test(key) && key.length <= echoLength ? `${path}.${key}` : `${path}[${quote(key)}]`;
}

export function item(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function fail(path: string, problem: string): never {
  throw new InvalidPolicyError(`${path}: ${problem}`);
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A plain JSON object: arrays, null and class instances are refused. */
export function readAnyObject(value: unknown, path: string): JsonObject {
  if (!isPlainObject(value)) return fail(path, 'must be an object');
  return value;
}

/** An object whose keys are all in `allowed`: an unknown key is refused by name, so a typo never goes unnoticed. */
export function readObject(value: unknown, path: string, allowed: readonly string[]): JsonObject {
  const object = readAnyObject(value, path);
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) fail(child(path, key), 'unknown key');
  }
  return object;
}

/** Own properties only: `__proto__` or `toString` in a body must never resolve to something inherited. */
export function get(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

export function has(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

export function readArray(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) return fail(path, 'must be an array');
  return value;
}

/** An array where absent and null both mean empty, as the SDKs' NON_NULL and None conventions intend. */
export function readOptionalArray(value: unknown, path: string): readonly unknown[] {
  return value === undefined || value === null ? [] : readArray(value, path);
}

export function readInteger(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return fail(path, `must be an integer from ${min} to ${max}`);
  }
  if (value < min || value > max) {
    return fail(path, `${value} is out of range, must be from ${min} to ${max}`);
  }
  // -0 would not survive a JSON round trip.
  return value + 0;
}

export function readNumber(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    return fail(path, `must be a number from ${min} to ${max}`);
  }
  return value + 0;
}

export function readBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') return fail(path, 'must be true or false');
  return value;
}

/**
 * A flag of a policy a client sent: a boolean, or "true"/"false" in any letter case, as the SDKs pass on whatever the
 * application gave them (the request schemas' `flag` reads the same way).
 */
export function readFlag(value: unknown, path: string): boolean {
  if (typeof value === 'string' && /^(?:true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return readBoolean(value, path);
}

/** A flag that may be absent or null, both meaning false. */
export function readOptionalFlag(value: unknown, path: string): boolean {
  return value === undefined || value === null ? false : readFlag(value, path);
}

/** The legacy wire's 0/1 flags. */
export function readBit(value: unknown, path: string): boolean {
  if (value !== 0 && value !== 1) return fail(path, 'must be 0 or 1');
  return value === 1;
}

export function readChoice<T extends string>(value: unknown, path: string, choices: readonly T[]): T {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    return fail(path, `must be one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}`);
  }
  return value as T;
}

/** A required label that devices show: one line of visible text. */
export function readText(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') return fail(path, 'must be a non-empty string');
  const problem = displayTextProblem(value);
  if (problem) fail(path, problem);
  return value;
}

/**
 * An optional label: absent or null is "no name"; an empty string is refused (PY's fence validator would fail on it).
 * Devices show it, so it must be one line of visible text.
 */
export function readName(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') return fail(path, 'must be a non-empty string or null');
  const problem = displayTextProblem(value);
  if (problem) fail(path, problem);
  return value;
}

/** Refuses a second item whose name equals an earlier one ignoring case (names identify legacy fences in PY). */
export function requireUniqueNames(
  names: readonly (string | null)[],
  pathOf: (index: number) => string,
): void {
  const seen = new Set<string>();
  names.forEach((name, index) => {
    if (name === null) return;
    const key = name.toLowerCase();
    if (seen.has(key)) fail(pathOf(index), `duplicate name ${quote(name)} (names must differ ignoring case)`);
    seen.add(key);
  });
}
