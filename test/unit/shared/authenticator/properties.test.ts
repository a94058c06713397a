import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Decision, evaluate } from '#shared/authenticator/evaluate';
import { authMethodNames } from '#shared/authenticator/methods';
import { authPolicyReport } from '#shared/domain/policy/auth-policy-report';
import { effectivePolicy } from '#shared/domain/policy/effective-policy';
import { blankServicePolicy } from '#shared/domain/policy/service-policy';
import {
  anyEffectivePolicy,
  deviceFor,
  policyCase,
  requestPolicy,
  servicePolicy,
} from '#test/unit/shared/authenticator/arbitraries';

const approve: Decision = { kind: 'approve' };
const decision: fc.Arbitrary<Decision> = fc.oneof(
  fc.constant(approve),
  fc.constant({ kind: 'deny' } as const),
  fc
    .record({ id: fc.string({ minLength: 1, maxLength: 5 }), fraud: fc.boolean() })
    .map((denialReason): Decision => ({ kind: 'deny', denialReason })),
);

describe('a merged policy is never weaker than either policy it was merged from', () => {
  it('a device approved under service + request is approved under the service alone and the request alone', () => {
    let approvedWithRequest = 0;
    const scenario = fc
      .record({ service: servicePolicy, request: requestPolicy })
      .chain(({ service, request }) => {
        const merged = effectivePolicy(service, request);
        const serviceAlone = effectivePolicy(service);
        const requestAlone = effectivePolicy(blankServicePolicy, request);
        return deviceFor(merged).map((device) => ({ merged, serviceAlone, requestAlone, device }));
      });
    fc.assert(
      fc.property(scenario, ({ merged, serviceAlone, requestAlone, device }) => {
        if (evaluate(merged, device, approve).type !== 'AUTHORIZED') return;
        approvedWithRequest += 1;
        expect(evaluate(serviceAlone, device, approve).type).toBe('AUTHORIZED');
        expect(evaluate(requestAlone, device, approve).type).toBe('AUTHORIZED');
      }),
      { numRuns: 2000 },
    );
    // The property only says something if approvals happen: the generators aim devices at the policies' fences.
    expect(approvedWithRequest).toBeGreaterThan(100);
  });
});

const validOutcomes = [
  'AUTHORIZED/APPROVED',
  'DENIED/DISAPPROVED',
  'DENIED/FRAUDULENT',
  'FAILED/POLICY',
  'FAILED/PERMISSION',
  'FAILED/AUTHENTICATION',
  'FAILED/CONFIGURATION',
  'FAILED/BUSY_LOCAL',
];
const methodKeys = ['method', 'set', 'active', 'allowed', 'supported', 'user_required', 'passed', 'error'];

describe('every evaluation is well formed', () => {
  const scenario = policyCase.chain(({ merged }) =>
    fc.record({ policy: fc.constant(merged), device: deviceFor(merged), decision }),
  );

  it('auth_methods items have exactly the 8 keys, in processing order, booleans or null', () => {
    fc.assert(
      fc.property(scenario, ({ policy, device, decision: choice }) => {
        const { authMethods } = evaluate(policy, device, choice);
        const names = authMethods.map((method) => method.method);
        expect(names).toEqual(authMethodNames.filter((name) => device.methods[name] !== undefined));
        for (const method of authMethods) {
          expect(Object.keys(method)).toEqual(methodKeys);
          for (const key of methodKeys.slice(1)) {
            expect([true, false, null]).toContain(method[key]);
          }
          // Never null: a method is active or not.
          expect(typeof method.active).toBe('boolean');
          // `error` is null exactly when the method did not run.
          expect(method.error === null).toBe(method.passed === null);
          // Only an active method runs.
          expect(method.passed === null || method.active === true).toBe(true);
        }
      }),
    );
  });

  it('type and reason are one of the valid pairs, a denial reason only with a denial, auth_policy the report', () => {
    fc.assert(
      fc.property(scenario, ({ policy, device, decision: choice }) => {
        const result = evaluate(policy, device, choice);
        expect(validOutcomes).toContain(`${result.type}/${result.reason}`);
        const chosenReason = choice.kind === 'deny' ? (choice.denialReason?.id ?? null) : null;
        expect(result.denialReason).toBe(result.type === 'DENIED' ? chosenReason : null);
        expect(result.authPolicy).toEqual(authPolicyReport(policy));
      }),
    );
  });

  it('the decision only matters once every check has passed', () => {
    fc.assert(
      fc.property(
        anyEffectivePolicy.chain((policy) => fc.tuple(fc.constant(policy), deviceFor(policy))),
        ([policy, device]) => {
          const approved = evaluate(policy, device, approve);
          const denied = evaluate(policy, device, { kind: 'deny', denialReason: { id: 'X', fraud: true } });
          const fraud = { ...approved, type: 'DENIED', reason: 'FRAUDULENT', denialReason: 'X' };
          expect(denied).toEqual(approved.type === 'FAILED' ? approved : fraud);
        },
      ),
    );
  });
});
