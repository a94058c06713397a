import type { Service } from '#shared/domain/service';
import { batchGetAll } from '#shared/store/dynamo';
import type { HeadItem } from '#shared/store/heads';
import { entityHeadKey } from '#shared/store/keys';

// Reading a service's head, apart from the writes in services.ts, whose name claims carry the look-alike data
// (100 KB) that the functions which only read a service have no use for.

/** The services' heads by id, whoever owns them (for showing sessions). */
export async function getServiceHeads(serviceIds: readonly string[]): Promise<Map<string, Service>> {
  const heads = await batchGetAll([...new Set(serviceIds)].map((id) => entityHeadKey({ type: 'svc', id })));
  return new Map(heads.map((head) => [head.id as string, serviceFromHead(head)]));
}

/** The stored policy on a service's head, if any. */
export function servicePolicyOf(head: HeadItem): Record<string, unknown> | undefined {
  return head.policy as Record<string, unknown> | undefined;
}

/** A service from its head or its listing copy: both carry the same fields. */
export function serviceFromHead(item: HeadItem): Service {
  const directoryId = item.directoryId as string | undefined;
  const organizationId = item.organizationId as string;
  return {
    id: item.id as string,
    name: item.name as string,
    description: (item.description as string | undefined) ?? null,
    icon: (item.icon as string | undefined) ?? null,
    callbackUrl: (item.callbackUrl as string | undefined) ?? null,
    active: item.active as boolean,
    created: item.created as string,
    owner: directoryId === undefined ? { type: 'org', id: organizationId } : { type: 'dir', id: directoryId },
    organizationId,
  };
}
