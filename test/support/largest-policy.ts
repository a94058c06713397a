import { policyLimits } from '#shared/domain/policy/limits';

/**
 * Policies at the limits of `policyLimits`, as large as every bound allows: names of three-byte characters, numbers as
 * long as JSON writes them, every list full. For the limit tests, which must show that the largest accepted policy
 * is stored, merged and shown without trouble, and that one past it is refused.
 */

export const times = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, index) => make(index));

let salt = 0;
/** CJK ideographs, three UTF-8 bytes each, different on every call (names must differ). */
export function wide(length: number): string {
  const start = (salt++ * 7919) % 20_000;
  return times(length, (index) => String.fromCodePoint(0x4e00 + ((start + index) % 20_000))).join('');
}

/** The longest numbers JSON.stringify writes for a coordinate and a radius that a policy takes. */
const longNumber = -1.2345678901234567e-100;
const longRadius = 1.2345678901234567e-100;

/** A legacy geofence location (a GEO_CIRCLE fence without its `type`). */
export const circle = (name: string | null = wide(policyLimits.nameLength), radius = longRadius) => ({
  ...(name === null ? {} : { name }),
  latitude: longNumber,
  longitude: longNumber,
  radius,
});

export const territory = (
  name = wide(policyLimits.nameLength),
  postalCode = wide(policyLimits.postalCodeLength),
) => ({
  type: 'TERRITORY',
  name,
  country: 'US',
  administrative_area: 'US-NVX',
  postal_code: postalCode,
});

export const timeFence = (name = wide(policyLimits.nameLength)) => ({
  name,
  days: ['Wednesday', 'Thursday', 'Saturday', 'Tuesday', 'Monday', 'Friday', 'Sunday'],
  'start hour': 23,
  'start minute': 59,
  'end hour': 23,
  'end minute': 59,
  // The longest zone id ICU keeps as it is, so the normal form is as long as it gets.
  timezone: 'America/Argentina/Rio_Gallegos',
});

const settings = { requirement: 'forced requirement', quickfail: false, priority: Number.MAX_SAFE_INTEGER };

/** A LEGACY policy in the factor form both SDKs send, with these locations and time fences. */
export function legacyPolicy(locations: unknown[], timeFences: unknown[] = []) {
  return {
    type: 'LEGACY',
    minimum_requirements: [
      { requirement: 'authenticated', any: 0, all: 0, knowledge: 1, inherence: 1, possession: 1 },
    ],
    factors: [
      ...(locations.length > 0
        ? [{ factor: 'geofence', ...settings, attributes: { locations, 'factor enabled': 1 } }]
        : []),
      ...(timeFences.length > 0
        ? [{ factor: 'timefence', ...settings, attributes: { 'time fences': timeFences } }]
        : []),
      { factor: 'device integrity', ...settings, attributes: { 'factor enabled': 1 } },
    ],
  };
}

/** The largest service policy: every list and every name at its limit. */
export const largestServicePolicy = () =>
  legacyPolicy(
    times(policyLimits.fences, () => circle()),
    times(policyLimits.timeFences, () => timeFence()),
  );

/** The largest policy of an authorization request: it takes no time fences. */
export const largestRequestPolicy = () => legacyPolicy(times(policyLimits.fences, () => circle()));
