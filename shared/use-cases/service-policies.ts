import {
  blankServicePolicy,
  InvalidPolicyError,
  parseServicePolicy,
  printServicePolicy,
} from '#shared/domain/policy/service-policy';
import { ApiError } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { getHead } from '#shared/store/heads';
import { servicePolicyOf } from '#shared/store/service-heads';
import { ownedService, setServicePolicy as storePolicy } from '#shared/store/services';

/** The owner's service's head, or SVC-004: the policy endpoints' refusal for a foreign or unknown service (docs/protocol.md#errors). */
async function ownedServiceHead(owner: Entity, serviceId: string) {
  const head = await getHead({ type: 'svc', id: serviceId });
  if (!head || !ownedService(owner, head))
    throw new ApiError('SVC-004', `There is no service ${serviceId} here`);
  return head;
}

/** The service's policy in the shape of docs/protocol.md#policies; the blank LEGACY policy when none is set. */
export async function readServicePolicy(owner: Entity, serviceId: string): Promise<Record<string, unknown>> {
  const head = await ownedServiceHead(owner, serviceId);
  return servicePolicyOf(head) ?? printServicePolicy(blankServicePolicy);
}

/** Validates any accepted encoding (SVC-002 with the reason) and stores its one normalised form. */
export async function setServicePolicy(owner: Entity, serviceId: string, policy: unknown): Promise<void> {
  await ownedServiceHead(owner, serviceId);
  let printed: Record<string, unknown>;
  try {
    printed = printServicePolicy(parseServicePolicy(policy));
  } catch (error) {
    if (error instanceof InvalidPolicyError) throw new ApiError('SVC-002', error.reason, { cause: error });
    throw error;
  }
  if (!(await storePolicy(serviceId, printed)))
    throw new ApiError('SVC-004', `There is no service ${serviceId} here`);
}

export async function removeServicePolicy(owner: Entity, serviceId: string): Promise<void> {
  await ownedServiceHead(owner, serviceId);
  await storePolicy(serviceId, null);
}
