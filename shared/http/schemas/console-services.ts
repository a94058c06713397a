import * as v from 'valibot';
import { methodAmountMax, methodAmountMin } from '#shared/domain/policy/advanced';
import { policyLimits } from '#shared/domain/policy/limits';
import { displayName, httpUrl } from '#shared/http/schemas/common';

const description = v.pipe(v.string(), v.maxLength(1000, 'must be at most 1000 characters'));

/** POST /console/api/directories/{id}/services: a Directory Service, as the signed API creates one. */
export const consoleCreateServiceBody = v.strictObject({
  name: displayName,
  description: v.optional(v.nullable(description)),
  icon: v.optional(v.nullable(httpUrl)),
  callback_url: v.optional(v.nullable(httpUrl)),
  active: v.optional(v.boolean()),
});

/** PATCH /console/api/services/{id}: the fields present change; null clears description, icon and callback URL. */
export const consoleUpdateServiceBody = v.strictObject({
  name: v.optional(displayName),
  description: v.optional(v.nullable(description)),
  icon: v.optional(v.nullable(httpUrl)),
  callback_url: v.optional(v.nullable(httpUrl)),
  active: v.optional(v.boolean()),
});

const fenceName = v.optional(
  v.nullable(
    v.pipe(
      v.string(),
      v.maxLength(policyLimits.nameLength, `must be at most ${policyLimits.nameLength} characters`),
    ),
  ),
);

const between = (min: number, max: number, message: string) =>
  v.pipe(v.number(), v.minValue(min, message), v.maxValue(max, message));

const circleFence = v.strictObject({
  type: v.picklist(['circle']),
  name: fenceName,
  latitude: between(-90, 90, 'must be −90 to 90'),
  longitude: between(-180, 180, 'must be −180 to 180'),
  radius: between(0, policyLimits.radiusMetres, `must be at most ${policyLimits.radiusMetres} (metres)`),
});

const territoryFence = v.strictObject({
  type: v.picklist(['territory']),
  name: fenceName,
  country: v.pipe(v.string(), v.regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')),
  administrative_area: v.optional(
    v.nullable(v.pipe(v.string(), v.regex(/^[A-Z]{2}-[A-Z]{2}[A-Z]?$/, 'must be an ISO 3166-2 code'))),
  ),
  postal_code: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(
          policyLimits.postalCodeLength,
          `must be at most ${policyLimits.postalCodeLength} characters`,
        ),
      ),
    ),
  ),
});

/**
 * PUT /console/api/services/{id}/policy: the policy editor's form. Factor types (a FACTORS policy) or a number of
 * methods (METHOD_AMOUNT), fences (circles by centre and radius in metres, territories), and the two device flags;
 * the service policy use case then validates it as it validates a signed PUT, and stores its one normal form.
 */
export const consoleServicePolicyBody = v.strictObject({
  factors: v.optional(
    v.pipe(
      v.array(v.picklist(['inherence', 'knowledge', 'possession'])),
      v.maxLength(3, 'holds each factor at most once'),
    ),
  ),
  amount: v.optional(
    v.pipe(
      v.number(),
      v.integer('must be a whole number'),
      v.minValue(methodAmountMin, `must be ${methodAmountMin} to ${methodAmountMax}`),
      v.maxValue(methodAmountMax, `must be ${methodAmountMin} to ${methodAmountMax}`),
    ),
  ),
  fences: v.optional(
    v.pipe(
      v.array(v.union([circleFence, territoryFence])),
      v.maxLength(policyLimits.fences, `must hold at most ${policyLimits.fences} fences`),
    ),
  ),
  deny_rooted_jailbroken: v.optional(v.boolean()),
  deny_emulator_simulator: v.optional(v.boolean()),
});

export type ConsoleServicePolicy = v.InferOutput<typeof consoleServicePolicyBody>;
