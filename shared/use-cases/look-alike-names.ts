import type { Service } from '#shared/domain/service';
import { listDirectories } from '#shared/store/directories';
import { listOrganizations } from '#shared/store/organizations';
import { claimServiceSkeleton, listServices } from '#shared/store/services';

/** A service whose name's look-alike form another service holds. */
export interface LookAlikeClash {
  readonly service_id: string;
  readonly name: string;
  readonly look_alike_of: string;
}

/**
 * Claims the look-alike form of every service's name, oldest first, for services named before look-alikes were
 * claimed: until then a new service could take a look-alike of theirs (docs/protocol.md#services). Claiming again is
 * harmless. Returns how many services there are and those whose look-alike form another holds, to rename by hand.
 */
export async function claimLookAlikeNames(
  now: Date,
): Promise<{ services: number; clashes: LookAlikeClash[] }> {
  const services: Service[] = [];
  for (const organization of await listOrganizations()) {
    services.push(...(await listServices({ type: 'org', id: organization.id })));
    for (const directory of await listDirectories(organization.id))
      services.push(...(await listServices({ type: 'dir', id: directory.id })));
  }
  services.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  const clashes: LookAlikeClash[] = [];
  for (const service of services) {
    const holder = await claimServiceSkeleton(service, now);
    if (holder !== undefined)
      clashes.push({ service_id: service.id, name: service.name, look_alike_of: holder });
  }
  return { services: services.length, clashes };
}
