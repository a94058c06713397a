/**
 * A service policy the service refuses to store. `reason` starts with the path of the offending field
 * (`policy.factors[1].attributes.locations[0].radius: must be a number greater than 0`) so the caller can find the
 * mistake without guessing; the boundary maps it to ARG-001 / SVC-002.
 */
export class InvalidPolicyError extends Error {
  override readonly name = 'InvalidPolicyError';

  constructor(readonly reason: string) {
    super(reason);
  }
}
