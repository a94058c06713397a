import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import { effectivePolicy } from '#shared/domain/policy/effective-policy';
import { printEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { jsonLongerThan, policyLimits } from '#shared/domain/policy/limits';
import {
  InvalidPolicyError,
  parseServicePolicy,
  printServicePolicy,
} from '#shared/domain/policy/service-policy';
import { circle, legacyPolicy, territory, timeFence, times, wide } from '#test/support/largest-policy';

const { fences, timeFences, nameLength, postalCodeLength, radiusMetres, policyBytes } = policyLimits;

function reasonFor(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPolicyError);
    return (error as InvalidPolicyError).reason;
  }
  return 'accepted';
}
const serviceReason = (input: unknown) => reasonFor(() => parseServicePolicy(input));
const requestReason = (input: unknown) => reasonFor(() => parseAuthRequestPolicy(input));

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const geoCircle = (name?: string | null, radius?: number) => ({
  type: 'GEO_CIRCLE',
  ...circle(name, radius),
});
const legacy = legacyPolicy;
const flat = (fields: Record<string, unknown>) => ({ type: 'LEGACY', amount: 1, ...fields });
const methodAmount = (list: unknown[]) => ({ type: 'METHOD_AMOUNT', amount: 1, fences: list });
const factors = (list: unknown[]) => ({ type: 'FACTORS', factors: ['KNOWLEDGE'], fences: list });
const conditional = (list: unknown[]) => ({
  type: 'COND_GEO',
  fences: list,
  inside: { type: 'METHOD_AMOUNT', amount: 2 },
  outside: { type: 'METHOD_AMOUNT', amount: 1 },
});

describe('jsonLongerThan', () => {
  it('agrees with the UTF-8 length of JSON.stringify for any JSON value and any bound', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 400 }), (value, max) => {
        expect(jsonLongerThan(value, max)).toBe(bytes(value) > max);
      }),
      { numRuns: 2000 },
    );
  });

  it('is exact at the bound, characters outside ASCII and escapes included', () => {
    const value = { 'k\u00e9y': ['\u4e00\ud83d\ude00', '"\\\n', -0.5e-7, true, null, {}] };
    expect([jsonLongerThan(value, bytes(value)), jsonLongerThan(value, bytes(value) - 1)]).toEqual([
      false,
      true,
    ]);
  });

  it('gives up on a value nested 100 000 deep, or of megabytes, without a stack overflow', () => {
    let deep: unknown = [];
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    expect([
      jsonLongerThan(deep, policyBytes),
      jsonLongerThan({ name: 'x'.repeat(5_000_000) }, policyBytes),
      jsonLongerThan(
        times(1_000_000, () => 0),
        policyBytes,
      ),
    ]).toEqual([true, true, true]);
  });
});

describe('a service policy', () => {
  it.each([
    ['METHOD_AMOUNT', methodAmount, 'policy.fences'],
    ['FACTORS', factors, 'policy.fences'],
    ['COND_GEO', conditional, 'policy.fences'],
  ])('of type %s holds at most 25 fences', (_, make, path) => {
    expect([
      serviceReason(make(times(fences, () => geoCircle(null)))),
      serviceReason(make(times(fences + 1, () => geoCircle(null)))),
    ]).toEqual(['accepted', `${path}: holds 26 fences, at most 25 are allowed`]);
  });

  it('of type LEGACY holds at most 25 locations and 10 time fences, in both its forms', () => {
    expect([
      serviceReason(legacy(times(fences, () => circle(null)))),
      serviceReason(legacy(times(fences + 1, () => circle(null)))),
      serviceReason(flat({ fences: times(fences, () => geoCircle(null)) })),
      serviceReason(flat({ fences: times(fences + 1, () => geoCircle(null)) })),
      serviceReason(
        legacy(
          [],
          times(timeFences, () => timeFence()),
        ),
      ),
      serviceReason(
        legacy(
          [],
          times(timeFences + 1, () => timeFence()),
        ),
      ),
      serviceReason(flat({ time_restrictions: times(timeFences, () => timeFence()) })),
      serviceReason(flat({ time_restrictions: times(timeFences + 1, () => timeFence()) })),
    ]).toEqual([
      'accepted',
      'policy.factors[0].attributes.locations: holds 26 fences, at most 25 are allowed',
      'accepted',
      'policy.fences: holds 26 fences, at most 25 are allowed',
      'accepted',
      'policy.factors[0].attributes["time fences"]: holds 11 time fences, at most 10 are allowed',
      'accepted',
      'policy.time_restrictions: holds 11 time fences, at most 10 are allowed',
    ]);
  });

  it('names fences and time fences with at most 100 characters, and postal codes with at most 16', () => {
    const tooLong = `must be at most ${nameLength} characters`;
    expect([
      serviceReason(methodAmount([geoCircle(wide(nameLength))])),
      serviceReason(methodAmount([geoCircle(wide(nameLength + 1))])),
      serviceReason(methodAmount([territory(wide(nameLength + 1))])),
      serviceReason(legacy([circle(wide(nameLength + 1))])),
      serviceReason(legacy([], [timeFence(wide(nameLength + 1))])),
      serviceReason(factors([territory(undefined, wide(postalCodeLength + 1))])),
    ]).toEqual([
      'accepted',
      `policy.fences[0].name: ${tooLong}`,
      `policy.fences[0].name: ${tooLong}`,
      `policy.factors[0].attributes.locations[0].name: ${tooLong}`,
      `policy.factors[0].attributes["time fences"][0].name: ${tooLong}`,
      `policy.fences[0].postal_code: must be at most ${postalCodeLength} characters`,
    ]);
  });

  it('takes radii from 1e-130 to half the equator, and keeps coordinates the store cannot hold as 0', () => {
    const stored = (fence: Record<string, unknown>) =>
      (printServicePolicy(parseServicePolicy(methodAmount([fence]))).fences as unknown[])[0];
    expect([
      serviceReason(methodAmount([geoCircle(null, radiusMetres)])),
      serviceReason(methodAmount([geoCircle(null, radiusMetres + 1)])),
      serviceReason(methodAmount([geoCircle(null, 1e300)])),
      serviceReason(methodAmount([geoCircle(null, 1e-130)])),
      serviceReason(methodAmount([geoCircle(null, 1e-131)])),
      stored({ type: 'GEO_CIRCLE', latitude: 1e-300, longitude: -5e-324, radius: 1 }),
      stored({ type: 'GEO_CIRCLE', latitude: 1e-130, longitude: -1e-130, radius: 1 }),
    ]).toEqual([
      'accepted',
      `policy.fences[0].radius: must be at most ${radiusMetres} (metres)`,
      `policy.fences[0].radius: must be at most ${radiusMetres} (metres)`,
      'accepted',
      'policy.fences[0].radius: must be at least 1e-130 (metres)',
      { type: 'GEO_CIRCLE', latitude: 0, longitude: 0, radius: 1 },
      { type: 'GEO_CIRCLE', latitude: 1e-130, longitude: -1e-130, radius: 1 },
    ]);
  });

  it('is at most 16 KB of JSON, measured before anything else is read', () => {
    const padded = (size: number) => {
      const policy = { type: 'METHOD_AMOUNT', amount: 1, unknown: '' };
      return { ...policy, unknown: 'u'.repeat(size - bytes(policy)) };
    };
    expect([
      serviceReason(padded(policyBytes)),
      serviceReason(padded(policyBytes + 1)),
      serviceReason(methodAmount(times(10_000, () => geoCircle(null)))),
    ]).toEqual([
      'policy.unknown: unknown key',
      `policy: must be at most ${policyBytes} bytes as compact JSON`,
      `policy: must be at most ${policyBytes} bytes as compact JSON`,
    ]);
  });

  it('at its largest stays within 16 KB in the normal form it is stored in, which parses again', () => {
    const largest = [
      legacy(
        times(fences, () => circle()),
        times(timeFences, () => timeFence()),
      ),
      flat({
        deny_rooted_jailbroken: true,
        fences: times(fences, () => geoCircle()),
        time_restrictions: times(timeFences, () => timeFence()),
      }),
      conditional(times(fences, () => territory())),
      methodAmount(times(fences, () => geoCircle())),
    ];
    const stored = largest.map((policy) => printServicePolicy(parseServicePolicy(policy)));
    expect({
      sizes: stored.map(bytes).filter((size) => size > policyBytes),
      again: stored.map((policy) => bytes(printServicePolicy(parseServicePolicy(policy))) === bytes(policy)),
    }).toEqual({ sizes: [], again: [true, true, true, true] });
  });
});

describe('an authorization request’s policy', () => {
  it('holds at most 25 locations named with at most 100 characters, within 16 KB', () => {
    const untyped = (locations: unknown[]) => ({ ...legacy(locations), type: undefined });
    expect([
      requestReason(untyped(times(fences, () => circle()))),
      requestReason(untyped(times(fences + 1, () => circle(null)))),
      requestReason(untyped([circle(wide(nameLength + 1))])),
      requestReason(untyped([circle(null, radiusMetres + 1)])),
      requestReason({ ...untyped([]), padding: 'p'.repeat(policyBytes) }),
    ]).toEqual([
      'accepted',
      'policy.factors[0].attributes.locations: holds 26 fences, at most 25 are allowed',
      `policy.factors[0].attributes.locations[0].name: must be at most ${nameLength} characters`,
      `policy.factors[0].attributes.locations[0].radius: must be at most ${radiusMetres} (metres)`,
      `policy: must be at most ${policyBytes} bytes as compact JSON`,
    ]);
  });

  it('merged with the largest service policy gives an effective policy of about 25 KB', () => {
    const service = parseServicePolicy(
      legacy(
        times(fences, () => circle()),
        times(timeFences, () => timeFence()),
      ),
    );
    const request = parseAuthRequestPolicy(legacy(times(fences, () => circle())));
    expect(bytes(printEffectivePolicy(effectivePolicy(service, request)))).toBeLessThan(2 * policyBytes);
  });
});
