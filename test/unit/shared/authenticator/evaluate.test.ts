import { describe, expect, it } from 'vitest';
import {
  type AuthMethodName,
  type Decision,
  type DeviceState,
  evaluate,
  type Evaluation,
  type MethodSetup,
} from '#shared/authenticator/evaluate';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import { type EffectivePolicy, effectivePolicy } from '#shared/domain/policy/effective-policy';
import { blankServicePolicy, parseServicePolicy } from '#shared/domain/policy/service-policy';

const policyOf = (serviceBody: unknown, requestBody?: unknown): EffectivePolicy =>
  effectivePolicy(
    serviceBody === undefined ? blankServicePolicy : parseServicePolicy(serviceBody),
    requestBody === undefined ? undefined : parseAuthRequestPolicy(requestBody),
  );

const hqCentre = { latitude: 36.120825, longitude: -115.157216 };
const hq = { type: 'GEO_CIRCLE', name: 'HQ', ...hqCentre, radius: 200 };
const printedHq = { type: 'GEO_CIRCLE', name: 'HQ', ...hqCentre, radius: 200 };
const elsewhere = { latitude: 40.7128, longitude: -74.006 };
const monday = new Date('2024-03-04T18:00:00Z');

/** Two methods of a service that wants both, inside its HQ. */
const amountPolicy = policyOf({ type: 'METHOD_AMOUNT', amount: 2, fences: [hq] });
const amountReport = { requirement: 'amount', amount: 2, geofences: [printedHq] };

/** A phone like the one of the JV feature "get device response methods": no wearables or face on this model. */
const phoneMethods: Partial<Record<AuthMethodName, MethodSetup>> = {
  wearables: { set: false, supported: false },
  geofencing: { set: false },
  locations: { set: false },
  pin_code: { set: true, userRequired: true },
  circle_code: { set: false },
  face: { set: false, supported: false },
  fingerprint: { set: true },
};
const phone: DeviceState = { methods: phoneMethods, location: hqCentre, now: monday };
const withMethod = (
  device: DeviceState,
  name: AuthMethodName,
  change: Partial<MethodSetup>,
): DeviceState => ({
  ...device,
  methods: { ...device.methods, [name]: { ...(device.methods[name] ?? { set: false }), ...change } },
});

const approve: Decision = { kind: 'approve' };

type Flag = boolean | null;
/** One auth_methods item, in the order of its keys on the wire. */
const row = (
  method: string,
  set: Flag,
  active: boolean,
  allowed: boolean,
  supported: boolean,
  userRequired: Flag,
  passed: Flag,
  error: Flag,
) => ({ method, set, active, allowed, supported, user_required: userRequired, passed, error });

/** The phone's rows with geofencing, pin_code and fingerprint given their outcomes. */
function phoneRows(geofencing: [Flag, Flag], pin: [Flag, Flag], fingerprint: [Flag, Flag]) {
  return [
    row('wearables', false, false, true, false, null, null, null),
    row('geofencing', null, true, true, true, null, ...geofencing),
    row('locations', false, false, true, true, null, null, null),
    row('pin_code', true, true, true, true, true, ...pin),
    row('circle_code', false, false, true, true, null, null, null),
    row('face', false, false, true, false, null, null, null),
    row('fingerprint', true, true, true, true, false, ...fingerprint),
  ];
}
const passed: [Flag, Flag] = [true, false];
const notRun: [Flag, Flag] = [null, null];

describe('evaluate: each type and reason of docs/protocol.md#answer-packages', () => {
  it('AUTHORIZED / APPROVED: inside the fence, both methods verified, the user approves', () => {
    expect(evaluate(amountPolicy, phone, approve)).toEqual<Evaluation>({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      denialReason: null,
      authPolicy: amountReport,
      authMethods: phoneRows(passed, passed, passed),
    });
  });

  it('DENIED / DISAPPROVED: the policy is met and the user denies with a reason that is not fraud', () => {
    expect(
      evaluate(amountPolicy, phone, { kind: 'deny', denialReason: { id: 'DEN1', fraud: false } }),
    ).toEqual<Evaluation>({
      type: 'DENIED',
      reason: 'DISAPPROVED',
      denialReason: 'DEN1',
      authPolicy: amountReport,
      authMethods: phoneRows(passed, passed, passed),
    });
  });

  it('DENIED / DISAPPROVED without denial reasons', () => {
    expect(evaluate(amountPolicy, phone, { kind: 'deny' })).toMatchObject({
      type: 'DENIED',
      reason: 'DISAPPROVED',
      denialReason: null,
    });
  });

  it('DENIED / FRAUDULENT: the user picks a reason marked fraud', () => {
    expect(
      evaluate(amountPolicy, phone, { kind: 'deny', denialReason: { id: 'DEN2', fraud: true } }),
    ).toEqual<Evaluation>({
      type: 'DENIED',
      reason: 'FRAUDULENT',
      denialReason: 'DEN2',
      authPolicy: amountReport,
      authMethods: phoneRows(passed, passed, passed),
    });
  });

  it('FAILED / POLICY: an inherence factor is required and none is set up', () => {
    const policy = policyOf({ type: 'FACTORS', factors: ['INHERENCE'] });
    const device = withMethod(phone, 'fingerprint', { set: false });
    expect(evaluate(policy, device, approve)).toEqual<Evaluation>({
      type: 'FAILED',
      reason: 'POLICY',
      denialReason: null,
      authPolicy: { requirement: 'types', types: ['inherence'], geofences: [] },
      authMethods: [
        ...phoneRows(notRun, notRun, notRun).slice(0, 6),
        row('fingerprint', false, false, true, true, null, null, null),
      ],
    });
  });

  it('FAILED / PERMISSION: the fence needs the location permission, which is denied', () => {
    const device = withMethod(phone, 'geofencing', { permission: false });
    const authMethods = phoneRows(notRun, notRun, notRun);
    authMethods[1] = row('geofencing', null, false, true, true, null, null, null);
    expect(evaluate(amountPolicy, device, approve)).toEqual<Evaluation>({
      type: 'FAILED',
      reason: 'PERMISSION',
      denialReason: null,
      authPolicy: amountReport,
      authMethods,
    });
  });

  it('FAILED / AUTHENTICATION: a wrong PIN stops the verification', () => {
    const device = withMethod(phone, 'pin_code', { verifies: false });
    expect(evaluate(amountPolicy, device, approve)).toEqual<Evaluation>({
      type: 'FAILED',
      reason: 'AUTHENTICATION',
      denialReason: null,
      authPolicy: amountReport,
      authMethods: phoneRows(passed, [false, false], notRun),
    });
  });

  it('FAILED / CONFIGURATION: the fingerprint the policy needs is not allowed by the app', () => {
    const policy = policyOf({ type: 'FACTORS', factors: ['INHERENCE'] });
    const device = withMethod(phone, 'fingerprint', { allowed: false });
    expect(evaluate(policy, device, approve)).toEqual<Evaluation>({
      type: 'FAILED',
      reason: 'CONFIGURATION',
      denialReason: null,
      authPolicy: { requirement: 'types', types: ['inherence'], geofences: [] },
      authMethods: [
        ...phoneRows(notRun, notRun, notRun).slice(0, 6),
        row('fingerprint', true, false, false, true, false, null, null),
      ],
    });
  });

  it('FAILED / BUSY_LOCAL: a local request is pending, nothing runs', () => {
    expect(evaluate(amountPolicy, { ...phone, busyLocal: true }, approve)).toEqual<Evaluation>({
      type: 'FAILED',
      reason: 'BUSY_LOCAL',
      denialReason: null,
      authPolicy: amountReport,
      authMethods: phoneRows(notRun, notRun, notRun),
    });
  });
});

describe('evaluate: what makes the policy unmeetable (FAILED / POLICY)', () => {
  const rooted = policyOf({ type: 'METHOD_AMOUNT', amount: 1, deny_rooted_jailbroken: true });
  const emulated = policyOf({ type: 'METHOD_AMOUNT', amount: 1, deny_emulator_simulator: true });
  it.each<[string, EffectivePolicy, DeviceState]>([
    ['too few methods set for the amount', policyOf({ type: 'METHOD_AMOUNT', amount: 3 }), phone],
    [
      'a required type with no method set',
      policyOf(undefined, {
        minimum_requirements: [{ requirement: 'authenticated', possession: 1 }],
        factors: [],
      }),
      phone,
    ],
    ['outside every fence of a group', amountPolicy, { ...phone, location: elsewhere }],
    ['a position the device cannot tell', amountPolicy, { methods: phoneMethods, now: monday }],
    ['rooted under deny_rooted_jailbroken', rooted, { ...phone, rootedOrJailbroken: true }],
    ['an emulator under deny_emulator_simulator', emulated, { ...phone, emulator: true }],
  ])('%s', (_, policy, device) => {
    expect(evaluate(policy, device, approve)).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
  });

  it.each<[string, EffectivePolicy, DeviceState]>([
    [
      'rooted without the deny flag',
      policyOf({ type: 'METHOD_AMOUNT', amount: 1 }),
      { ...phone, rootedOrJailbroken: true },
    ],
    ['an emulator with only the rooted flag', rooted, { ...phone, emulator: true }],
  ])('but not %s', (_, policy, device) => {
    expect(evaluate(policy, device, approve)).toMatchObject({ type: 'AUTHORIZED' });
  });

  it('fences of both the service and the request must each hold', () => {
    const home = { name: 'Home', latitude: 40.7128, longitude: -74.006, radius: 500 };
    const policy = policyOf(
      { type: 'METHOD_AMOUNT', amount: 1, fences: [hq] },
      {
        minimum_requirements: [],
        factors: [
          {
            factor: 'geofence',
            requirement: 'forced requirement',
            priority: 1,
            attributes: { locations: [home] },
          },
        ],
      },
    );
    expect(evaluate(policy, phone, approve)).toMatchObject({ reason: 'POLICY' });
    expect(evaluate(policy, { ...phone, location: elsewhere }, approve)).toMatchObject({ reason: 'POLICY' });
  });
});

describe('evaluate: time fences on the fence’s clock', () => {
  const weekdayOffice = policyOf({
    type: 'LEGACY',
    minimum_requirements: [],
    factors: [
      {
        factor: 'timefence',
        requirement: 'forced requirement',
        priority: 1,
        attributes: {
          'time fences': [
            {
              name: 'Office',
              days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
              'start hour': 9,
              'start minute': 0,
              'end hour': 17,
              'end minute': 0,
              timezone: 'America/Los_Angeles',
            },
          ],
        },
      },
    ],
  });

  it.each([
    ['Monday 10:00 in Los Angeles', '2024-03-04T18:00:00Z'],
    ['Friday 17:00 in Los Angeles, which is Saturday in UTC', '2024-03-09T01:00:00Z'],
  ])('inside: %s', (_, instant) => {
    const result = evaluate(weekdayOffice, { ...phone, now: new Date(instant) }, approve);
    expect(result).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
  });

  it.each([
    ['Monday 08:00 in Los Angeles, though 16:00 UTC', '2024-03-04T16:00:00Z'],
    ['Saturday 10:00 in Los Angeles', '2024-03-09T18:00:00Z'],
  ])('outside: %s', (_, instant) => {
    const result = evaluate(weekdayOffice, { ...phone, now: new Date(instant) }, approve);
    expect(result).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
    // Nothing ran: the window is checked before any method.
    expect(result.authMethods.every((method) => method.passed === null)).toBe(true);
  });
});

describe('evaluate: COND_GEO on a TERRITORY fence', () => {
  const nevada = {
    type: 'TERRITORY',
    name: 'US-NV',
    country: 'US',
    administrative_area: 'US-NV',
    postal_code: '89120',
  };
  const policy = policyOf({
    type: 'COND_GEO',
    fences: [nevada],
    inside: { type: 'METHOD_AMOUNT', amount: 1 },
    outside: { type: 'FACTORS', factors: ['INHERENCE', 'KNOWLEDGE'] },
  });
  const inNevada = { country: 'US', administrativeArea: 'US-NV', postalCode: '89120' };
  const report = {
    requirement: 'cond_geo',
    geofences: [
      { type: 'TERRITORY', name: 'US-NV', country: 'US', administrative_area: 'US-NV', postal_code: '89120' },
    ],
  };

  it('inside: one method — the user-required PIN — is enough', () => {
    const result = evaluate(policy, { ...phone, territory: inNevada }, approve);
    expect(result).toEqual<Evaluation>({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      denialReason: null,
      authPolicy: report,
      authMethods: phoneRows(passed, passed, notRun),
    });
  });

  it('outside: the outside branch asks for inherence too', () => {
    const result = evaluate(
      policy,
      { ...phone, territory: { country: 'US', administrativeArea: 'US-CA' } },
      approve,
    );
    expect(result.authMethods).toEqual(phoneRows(passed, passed, passed));
  });

  it('outside, without the fingerprint it needs there: POLICY', () => {
    const device = withMethod({ ...phone, territory: { country: 'CA' } }, 'fingerprint', { set: false });
    expect(evaluate(policy, device, approve)).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
    // Inside, the same device is fine.
    expect(evaluate(policy, { ...device, territory: inNevada }, approve)).toMatchObject({
      type: 'AUTHORIZED',
    });
  });

  it('position unknown for want of permission: PERMISSION when a branch could be met', () => {
    const device = withMethod({ ...phone, territory: inNevada }, 'geofencing', { permission: false });
    expect(evaluate(policy, device, approve)).toMatchObject({ type: 'FAILED', reason: 'PERMISSION' });
  });

  it('position unknown and neither branch meetable: POLICY', () => {
    const strict = policyOf({
      type: 'COND_GEO',
      fences: [nevada],
      inside: { type: 'METHOD_AMOUNT', amount: 4 },
      outside: { type: 'FACTORS', factors: ['POSSESSION'] },
    });
    const device = withMethod(phone, 'geofencing', { permission: false });
    expect(evaluate(strict, device, approve)).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
  });
});

describe('evaluate: precedence when several checks would fail', () => {
  const inherence = policyOf({
    type: 'FACTORS',
    factors: ['INHERENCE'],
    fences: [hq],
    deny_rooted_jailbroken: true,
  });
  const cases: [string, EffectivePolicy, DeviceState, Decision, string][] = [
    [
      'BUSY_LOCAL before POLICY',
      inherence,
      { ...phone, busyLocal: true, rootedOrJailbroken: true },
      approve,
      'BUSY_LOCAL',
    ],
    [
      'POLICY (rooted) before CONFIGURATION',
      inherence,
      withMethod({ ...phone, rootedOrJailbroken: true }, 'fingerprint', { allowed: false }),
      approve,
      'POLICY',
    ],
    [
      'POLICY (outside) before CONFIGURATION',
      inherence,
      withMethod({ ...phone, location: elsewhere }, 'fingerprint', { supported: false }),
      approve,
      'POLICY',
    ],
    [
      'POLICY (methods) before PERMISSION (location)',
      inherence,
      withMethod(withMethod(phone, 'fingerprint', { set: false }), 'geofencing', { permission: false }),
      approve,
      'POLICY',
    ],
    [
      'CONFIGURATION (geofencing) before PERMISSION',
      inherence,
      withMethod(withMethod(phone, 'geofencing', { supported: false }), 'fingerprint', { permission: false }),
      approve,
      'CONFIGURATION',
    ],
    [
      'CONFIGURATION: geofencing unknown to the device',
      inherence,
      { ...phone, methods: { ...phoneMethods, geofencing: undefined } },
      approve,
      'CONFIGURATION',
    ],
    [
      'CONFIGURATION: a user-required method the app forbids, though the policy does not need it',
      policyOf(undefined),
      withMethod(phone, 'pin_code', { allowed: false }),
      approve,
      'CONFIGURATION',
    ],
    [
      'PERMISSION before AUTHENTICATION',
      inherence,
      withMethod(withMethod(phone, 'fingerprint', { permission: false }), 'pin_code', { verifies: false }),
      approve,
      'PERMISSION',
    ],
    [
      'PERMISSION: a user-required method without its permission',
      policyOf(undefined),
      withMethod(phone, 'pin_code', { permission: false }),
      approve,
      'PERMISSION',
    ],
    [
      'AUTHENTICATION before the decision: a denial is verified too',
      inherence,
      withMethod(phone, 'fingerprint', { verifies: false }),
      { kind: 'deny', denialReason: { id: 'F', fraud: true } },
      'AUTHENTICATION',
    ],
    [
      'AUTHENTICATION: a user-required location check that fails',
      policyOf(undefined),
      withMethod(phone, 'locations', { set: true, userRequired: true, verifies: false }),
      approve,
      'AUTHENTICATION',
    ],
  ];
  it.each(cases)('%s', (_, policy, device, decision, reason) => {
    const result = evaluate(policy, device, decision);
    expect(result.reason).toBe(reason);
    expect(result.type).toBe('FAILED');
    expect(result.denialReason).toBeNull();
  });

  it('a device with another method of the type needs no permission for the one it lacks', () => {
    const device = withMethod(withMethod(phone, 'fingerprint', { permission: false }), 'face', {
      set: true,
      supported: true,
    });
    const result = evaluate(inherence, device, approve);
    expect(result.type).toBe('AUTHORIZED');
    expect(result.authMethods.find((method) => method.method === 'face')).toMatchObject({ passed: true });
    expect(result.authMethods.find((method) => method.method === 'fingerprint')).toMatchObject({
      active: false,
      passed: null,
    });
  });
});

describe('evaluate: which methods are verified', () => {
  const everything: DeviceState = {
    methods: {
      wearables: { set: true },
      geofencing: { set: false },
      locations: { set: true },
      pin_code: { set: true },
      circle_code: { set: true },
      face: { set: true },
      fingerprint: { set: true },
    },
    now: monday,
  };
  const ran = (policy: EffectivePolicy, device: DeviceState = everything) =>
    evaluate(policy, device, approve)
      .authMethods.filter((method) => method.passed !== null)
      .map((method) => method.method);

  it.each<[string, EffectivePolicy, string[]]>([
    ['no demand: none', policyOf(undefined), []],
    [
      'an amount: the first methods in processing order',
      policyOf({ type: 'METHOD_AMOUNT', amount: 3 }),
      ['wearables', 'pin_code', 'circle_code'],
    ],
    [
      'types: the first method of each',
      policyOf({ type: 'FACTORS', factors: ['INHERENCE', 'KNOWLEDGE'] }),
      ['pin_code', 'face'],
    ],
    [
      'an amount and a type: both rules, not the fewest',
      policyOf(
        { type: 'METHOD_AMOUNT', amount: 1 },
        { minimum_requirements: [{ requirement: 'authenticated', inherence: 1 }], factors: [] },
      ),
      ['wearables', 'face'],
    ],
    [
      'five: all counting methods, never locations',
      policyOf({ type: 'METHOD_AMOUNT', amount: 5 }),
      ['wearables', 'pin_code', 'circle_code', 'face', 'fingerprint'],
    ],
  ])('%s', (_, policy, methods) => {
    expect(ran(policy)).toEqual(methods);
  });

  it('user-required methods run on every request, and count', () => {
    const device = withMethod(withMethod(everything, 'fingerprint', { userRequired: true }), 'locations', {
      userRequired: true,
    });
    expect(ran(policyOf(undefined), device)).toEqual(['locations', 'fingerprint']);
    expect(ran(policyOf({ type: 'FACTORS', factors: ['INHERENCE'] }), device)).toEqual([
      'locations',
      'face',
      'fingerprint',
    ]);
  });

  it('inactive methods are skipped and reported inactive', () => {
    const device = withMethod(everything, 'wearables', { permission: false });
    const result = evaluate(policyOf({ type: 'METHOD_AMOUNT', amount: 1 }), device, approve);
    expect(result.authMethods[0]).toEqual(row('wearables', true, false, true, true, false, null, null));
    expect(
      result.authMethods.filter((method) => method.passed === true).map((method) => method.method),
    ).toEqual(['pin_code']);
  });

  it('a device reports only the methods it knows, in processing order', () => {
    const device: DeviceState = {
      methods: { fingerprint: { set: true }, pin_code: { set: false } },
      now: monday,
    };
    expect(evaluate(policyOf(undefined), device, approve).authMethods).toEqual([
      row('pin_code', false, false, true, true, null, null, null),
      row('fingerprint', true, true, true, true, false, null, null),
    ]);
  });
});
