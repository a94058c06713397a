import fc from 'fast-check';
import type { DeviceState, MethodSetup } from '#shared/authenticator/evaluate';
import { authMethodNames } from '#shared/authenticator/methods';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import type { EffectivePolicy, PolicyFence } from '#shared/domain/policy/effective-policy';
import { effectivePolicy } from '#shared/domain/policy/effective-policy';
import type { LegacyPolicy } from '#shared/domain/policy/legacy';
import { parseServicePolicy, type ServicePolicy } from '#shared/domain/policy/service-policy';
import { acceptedPolicy, demand, demandsSomething } from '#test/unit/shared/domain/policy/arbitraries';

/**
 * Generators for authorization-request policies as the SDKs send them (docs/protocol.md#policies), the effective
 * policies built from them, and devices that often — not always — satisfy those policies, so that properties about
 * approval see many approvals.
 */

type Json = Record<string, unknown>;

const latitude = fc.double({ min: -89, max: 89, noNaN: true });
const longitude = fc.double({ min: -179, max: 179, noNaN: true });
const radius = fc.double({ min: 1, max: 1e6, noNaN: true });
const name = fc.string({ minLength: 1, maxLength: 8 });

/** Mostly none: a request geofence far from the service's leaves no place to approve from. */
const locations = (withName: fc.Arbitrary<string | undefined>) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    {
      weight: 1,
      arbitrary: fc.uniqueArray(
        fc
          .record({ radius, latitude, longitude, name: withName })
          .map(({ name: label, ...rest }) => (label === undefined ? rest : { ...rest, name: label })),
        {
          maxLength: 3,
          selector: (location) => ('name' in location ? location.name.toLowerCase() : Symbol('unnamed')),
        },
      ),
    },
  );

/** PY `AuthPolicy.to_dict()`: device integrity always listed (first, from the constructor), `quickfail` on every factor. */
export const pythonRequestPolicy: fc.Arbitrary<Json> = fc
  .record({ demand, jailbreak: fc.boolean(), locations: locations(fc.option(name, { nil: undefined })) })
  .map(({ demand: d, jailbreak, locations: places }) => {
    const factor = (kind: string, attributes: Json) => ({
      factor: kind,
      requirement: 'forced requirement',
      quickfail: false,
      priority: 1,
      attributes,
    });
    const factors = [factor('device integrity', { 'factor enabled': jailbreak ? 1 : 0 })];
    if (places.length > 0) factors.push(factor('geofence', { locations: places }));
    return {
      factors,
      minimum_requirements: demandsSomething(d) ? [{ requirement: 'authenticated', ...d }] : [],
    };
  });

/** JV `AuthPolicy`: no `quickfail`, device integrity only when on, nulls for numbers it was not given. */
export const javaRequestPolicy: fc.Arbitrary<Json> = fc
  .record({
    demand,
    nulls: fc.boolean(),
    deviceIntegrity: fc.boolean(),
    locations: locations(fc.option(name, { nil: undefined })),
  })
  .map(({ demand: d, nulls, deviceIntegrity, locations: places }) => {
    const factor = (kind: string, attributes: Json) => ({
      factor: kind,
      requirement: 'forced requirement',
      priority: 1,
      attributes,
    });
    const factors: Json[] = [];
    if (places.length > 0) factors.push(factor('geofence', { locations: places }));
    if (deviceIntegrity) factors.push(factor('device integrity', { 'factor enabled': 1 }));
    const orNull = (value: number) => (nulls && value === 0 ? null : value);
    return {
      minimum_requirements: demandsSomething(d)
        ? [
            {
              requirement: 'authenticated',
              any: orNull(d.any),
              knowledge: orNull(d.knowledge),
              inherence: orNull(d.inherence),
              possession: orNull(d.possession),
            },
          ]
        : [],
      factors,
    };
  });

export const requestPolicyBody: fc.Arbitrary<Json> = fc.oneof(pythonRequestPolicy, javaRequestPolicy);

export const requestPolicy: fc.Arbitrary<LegacyPolicy> = requestPolicyBody.map(parseAuthRequestPolicy);

export const servicePolicy: fc.Arbitrary<ServicePolicy> = acceptedPolicy.map(parseServicePolicy);

export interface PolicyCase {
  readonly service: ServicePolicy;
  readonly request: LegacyPolicy | undefined;
  readonly merged: EffectivePolicy;
}

export const policyCase: fc.Arbitrary<PolicyCase> = fc
  .record({ service: servicePolicy, request: fc.option(requestPolicy, { nil: undefined }) })
  .map(({ service, request }) => ({ service, request, merged: effectivePolicy(service, request) }));

export const anyEffectivePolicy: fc.Arbitrary<EffectivePolicy> = policyCase.map(({ merged }) => merged);

/** Mostly `true`: devices that are mostly in order reach the later stages of an evaluation. */
const usually = fc.oneof(
  { weight: 5, arbitrary: fc.constant(true) },
  { weight: 1, arbitrary: fc.constant(false) },
);
const seldom = usually.map((value) => !value);

const methodSetup: fc.Arbitrary<MethodSetup> = fc.record({
  set: usually,
  allowed: usually,
  supported: usually,
  userRequired: seldom,
  permission: usually,
  verifies: usually,
});

function fencesOf(policy: EffectivePolicy): PolicyFence[] {
  return [...(policy.demand.kind === 'cond_geo' ? policy.demand.fences : []), ...policy.fenceGroups.flat()];
}

/** A device near the policies' own fences (so it is sometimes inside them), at some moment of 2024. */
export function deviceFor(...policies: EffectivePolicy[]): fc.Arbitrary<DeviceState> {
  const fences = policies.flatMap(fencesOf);
  const circles = fences.flatMap((fence) => (fence.type === 'TERRITORY' ? [] : [fence]));
  const territories = fences.flatMap((fence) => (fence.type === 'TERRITORY' ? [fence] : []));
  const position = fc.oneof(
    fc.record({ latitude, longitude }),
    ...(circles.length > 0
      ? [
          fc
            .constantFrom(...circles)
            .map(({ latitude: lat, longitude: lon }) => ({ latitude: lat, longitude: lon })),
        ]
      : []),
  );
  const territory = fc.oneof(
    fc.record({ country: fc.constantFrom('US', 'CA', 'GB') }),
    ...(territories.length > 0
      ? [
          fc.constantFrom(...territories).map((fence) => ({
            country: fence.country,
            ...(fence.administrativeArea === null ? {} : { administrativeArea: fence.administrativeArea }),
            ...(fence.postalCode === null ? {} : { postalCode: fence.postalCode }),
          })),
        ]
      : []),
  );
  const methods = fc
    .tuple(
      ...authMethodNames.map((method) =>
        fc.option(
          methodSetup.map((setup) => [method, setup] as const),
          { freq: 20, nil: undefined },
        ),
      ),
    )
    .map((entries) => Object.fromEntries(entries.filter((entry) => entry !== undefined)));
  return fc.record({
    methods,
    location: fc.option(position, { freq: 8, nil: undefined }),
    territory: fc.option(territory, { freq: 8, nil: undefined }),
    rootedOrJailbroken: seldom,
    emulator: seldom,
    busyLocal: fc.oneof(
      { weight: 15, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
    now: fc.date({
      min: new Date('2024-01-01T00:00:00Z'),
      max: new Date('2024-12-31T23:59:59Z'),
      noInvalidDate: true,
    }),
  });
}
