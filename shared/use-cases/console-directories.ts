import type { DirectoryRecord } from '#shared/domain/directory';
import { sameOrganization } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import { ApiError } from '#shared/errors';
import * as directories from '#shared/store/directories';
import { getHead, ownershipOf } from '#shared/store/heads';
import { listOrganizations } from '#shared/store/organizations';

/**
 * A directory as the console lists it: what an admin recognizes it by. Never its push credentials or anything sealed,
 * which the console shows, when it does, by their status only.
 */
export interface ConsoleDirectory {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly active: boolean;
  readonly service_ids: readonly string[];
  readonly sdk_key_count: number;
  readonly webhook_url: string | null;
  readonly denial_context_inquiry_enabled: boolean;
}

const shown = (organizationId: string, record: DirectoryRecord): ConsoleDirectory => ({
  id: record.id,
  organization_id: organizationId,
  name: record.name,
  active: record.active,
  service_ids: record.service_ids,
  sdk_key_count: record.sdk_keys.length,
  webhook_url: record.webhook_url,
  denial_context_inquiry_enabled: record.denial_context_inquiry_enabled,
});

/** The admin's organization's directories; the operator's: every organization's. */
export async function consoleDirectories(admin: ConsoleSession): Promise<ConsoleDirectory[]> {
  const organizationIds =
    admin.organizationId !== null
      ? [admin.organizationId]
      : admin.role === 'operator'
        ? (await listOrganizations()).map((organization) => organization.id)
        : [];
  const lists = await Promise.all(
    organizationIds.map(async (id) =>
      (await directories.listDirectories(id)).map((record) => shown(id, record)),
    ),
  );
  return lists.flat();
}

/**
 * One directory, if it is the admin's organization's (any, for the operator). Another organization's answers
 * exactly as one that does not exist: CON-004, the same detail.
 */
export async function consoleDirectory(
  admin: ConsoleSession,
  directoryId: string,
): Promise<ConsoleDirectory> {
  const owner = ownershipOf(await getHead({ type: 'dir', id: directoryId }))?.organizationId;
  const record =
    owner !== undefined && sameOrganization(admin, owner)
      ? await directories.getDirectory(owner, directoryId)
      : undefined;
  if (!record || owner === undefined) throw new ApiError('CON-004', `No directory ${directoryId}`);
  return shown(owner, record);
}
