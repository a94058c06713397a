import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  blankServicePolicy,
  InvalidPolicyError,
  parseServicePolicy,
  printServicePolicy,
} from '#shared/domain/policy/service-policy';
import {
  acceptedPolicy,
  corruptedPolicy,
  javaAdvancedPolicy,
  javaLegacyPolicy,
  pythonAdvancedPolicy,
  pythonFlatLegacyPolicy,
  pythonServiceSecurityPolicy,
} from '#test/unit/shared/domain/policy/arbitraries';
import { javaProblems, pythonProblems } from '#test/unit/shared/domain/policy/sdk-readers';

const encodings = [
  ['PY ServiceSecurityPolicy', pythonServiceSecurityPolicy],
  ['JV LEGACY', javaLegacyPolicy],
  ['PY flat LegacyPolicy', pythonFlatLegacyPolicy],
  ['PY advanced', pythonAdvancedPolicy],
  ['JV advanced', javaAdvancedPolicy],
] as const;

const normalise = (input: unknown) => printServicePolicy(parseServicePolicy(input));
const blank = printServicePolicy(blankServicePolicy);

describe.each(encodings)('every %s body', (_, arbitrary) => {
  it('is accepted, and printing is a fixed point of parse ∘ print', () => {
    fc.assert(
      fc.property(arbitrary, (input) => {
        const once = normalise(input);
        expect(normalise(once)).toEqual(once);
      }),
    );
  });

  it('prints a form JV and PY both read', () => {
    fc.assert(
      fc.property(arbitrary, (input) => {
        const printed = normalise(input);
        expect(javaProblems(printed)).toEqual([]);
        expect(pythonProblems(printed)).toEqual([]);
      }),
    );
  });
});

describe('the stored form', () => {
  it('survives a JSON round trip unchanged', () => {
    fc.assert(
      fc.property(acceptedPolicy, (input) => {
        const policy = parseServicePolicy(input);
        expect(JSON.parse(JSON.stringify(policy))).toEqual(policy);
      }),
    );
  });

  it('is the same whichever accepted printing it is parsed from', () => {
    fc.assert(
      fc.property(acceptedPolicy, (input) => {
        const policy = parseServicePolicy(input);
        expect(parseServicePolicy(printServicePolicy(policy))).toEqual(policy);
      }),
    );
  });
});

/** What parsing did: the printed policy, or what it threw. */
function attempt(input: unknown): { printed?: Record<string, unknown>; thrown?: unknown } {
  try {
    return { printed: normalise(input) };
  } catch (thrown) {
    return { thrown };
  }
}

describe('arbitrary input', () => {
  const onlyInvalidPolicyError = (input: unknown) => {
    const { thrown } = attempt(input);
    expect(thrown === undefined || thrown instanceof InvalidPolicyError).toBe(true);
    expect(thrown instanceof InvalidPolicyError ? thrown.reason : 'policy: accepted').toMatch(
      /^policy.*: \S/,
    );
  };

  it('never makes the parser throw anything but InvalidPolicyError (JSON values)', () => {
    fc.assert(fc.property(fc.jsonValue(), onlyInvalidPolicyError), { numRuns: 500 });
  });

  it('never makes the parser throw anything but InvalidPolicyError (any values)', () => {
    fc.assert(fc.property(fc.anything({ withNullPrototype: true }), onlyInvalidPolicyError), {
      numRuns: 500,
    });
  });

  it('near the accepted shapes either parses to a form the SDKs read or is refused with a reason', () => {
    fc.assert(
      fc.property(corruptedPolicy, (input) => {
        const { printed, thrown } = attempt(input);
        expect(thrown === undefined || thrown instanceof InvalidPolicyError).toBe(true);
        const readable = printed ?? blank;
        expect(javaProblems(readable)).toEqual([]);
        expect(pythonProblems(readable)).toEqual([]);
        expect(normalise(readable)).toEqual(readable);
      }),
      { numRuns: 500 },
    );
  });
});
