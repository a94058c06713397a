import * as v from 'valibot';
import { sameOrganization } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import type { Service } from '#shared/domain/service';
import { ApiError } from '#shared/errors';
import { clip, idEchoLength } from '#shared/echo';
import { getHead, ownershipOf } from '#shared/store/heads';
import { getOrganization } from '#shared/store/organizations';
import { serviceFromHead } from '#shared/store/service-heads';

// What an id in a console request may name: the admin's organization's things only (any organization's for the
// operator). Every refusal here reads exactly as the answer for an id that does not exist (docs/console.md#roles),
// so that an admin learns nothing of other tenants, not even that an id exists.

const uuid = v.pipe(v.string(), v.uuid());

const missing = (what: string, id: string) => new ApiError('CON-004', `No ${what} ${clip(id, idEchoLength)}`);

/**
 * The organization a console change is made in: the admin's own, which they may name or leave out; the operator, who
 * has none, names one that exists.
 */
export async function consoleOrganization(
  admin: ConsoleSession,
  organizationId: string | undefined,
): Promise<string> {
  if (admin.role !== 'operator') {
    if (
      admin.organizationId === null ||
      (organizationId !== undefined && organizationId !== admin.organizationId)
    )
      throw missing('organization', organizationId ?? '');
    return admin.organizationId;
  }
  if (organizationId === undefined || !v.is(uuid, organizationId) || !(await getOrganization(organizationId)))
    throw missing('organization', organizationId ?? '');
  return organizationId;
}

/** The organization that owns a directory the admin may touch. */
export async function consoleDirectoryOrganization(
  admin: ConsoleSession,
  directoryId: string,
): Promise<string> {
  const owner = v.is(uuid, directoryId)
    ? ownershipOf(await getHead({ type: 'dir', id: directoryId }))?.organizationId
    : undefined;
  if (owner === undefined || !sameOrganization(admin, owner)) throw missing('directory', directoryId);
  return owner;
}

/**
 * Who makes a change the operator's admin CLI makes too: the operator there, whose change the use case records (no
 * pipeline does), or a console admin, whose change the console's pipeline records (the admin, role and session).
 */
export type OperatorOrConsoleAdmin =
  | { readonly operator: string }
  | { readonly console: Pick<ConsoleSession, 'adminId' | 'role' | 'organizationId'> };

/** Refuses a console admin a directory of another organization, as a missing one; the operator reaches every one. */
export function refuseForeignDirectory(
  by: OperatorOrConsoleAdmin,
  organizationId: string,
  directoryId: string,
): void {
  if ('console' in by && !sameOrganization(by.console, organizationId))
    throw missing('directory', directoryId);
}

/** A service the admin may touch, with its owner (a directory, or the organization for an Organization Service). */
export async function consoleService(admin: ConsoleSession, serviceId: string): Promise<Service> {
  const head = v.is(uuid, serviceId) ? await getHead({ type: 'svc', id: serviceId }) : undefined;
  const owner = ownershipOf(head)?.organizationId;
  if (!head || owner === undefined || !sameOrganization(admin, owner)) throw missing('service', serviceId);
  return serviceFromHead(head);
}
