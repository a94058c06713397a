import type { Entity } from '#shared/protocol/entity';
import {
  blankServicePolicy,
  InvalidPolicyError,
  parseServicePolicy,
  printServicePolicy,
} from '#shared/domain/policy/service-policy';
import { ApiError } from '#shared/errors';
import { deleteServicePolicy, getServicePolicy, putServicePolicy } from '#shared/store/service-policies';
import { requireService } from '#shared/use-cases/services';

/** The service's policy in the shape of sdk-compatibility §8.2; the blank LEGACY policy when none is set. */
export async function readServicePolicy(owner: Entity, serviceId: string): Promise<Record<string, unknown>> {
  await requireService(owner, serviceId, 'not-found');
  return (await getServicePolicy(serviceId)) ?? printServicePolicy(blankServicePolicy);
}

/** Validates any accepted encoding (SVC-002 with the reason) and stores its one normalised form. */
export async function setServicePolicy(owner: Entity, serviceId: string, policy: unknown): Promise<void> {
  await requireService(owner, serviceId, 'not-found');
  let printed: Record<string, unknown>;
  try {
    printed = printServicePolicy(parseServicePolicy(policy));
  } catch (error) {
    if (error instanceof InvalidPolicyError) throw new ApiError('SVC-002', error.reason, { cause: error });
    throw error;
  }
  await putServicePolicy(serviceId, printed);
}

export async function removeServicePolicy(owner: Entity, serviceId: string): Promise<void> {
  await requireService(owner, serviceId, 'not-found');
  await deleteServicePolicy(serviceId);
}
