import { randomUUID } from 'node:crypto';
import type { DirectoryView } from '#shared/domain/directory';
import { quote } from '#shared/echo';
import { ApiError, forbidden } from '#shared/errors';
import * as store from '#shared/store/directories';

/** Creates a directory: active, denial context inquiry on, no services or SDK keys yet. A name in use is ORG-003. */
export async function createDirectory(organizationId: string, name: string, now: Date): Promise<string> {
  const id = randomUUID();
  if (!(await store.createDirectory(organizationId, { id, name }, now))) {
    throw new ApiError('ORG-003', `This organization already has a directory named ${quote(name)}`);
  }
  return id;
}

/** The organization's directory, or 403 whether it is another organization's or does not exist. */
export async function requireDirectory(organizationId: string, directoryId: string): Promise<DirectoryView> {
  const directory = await store.getDirectory(organizationId, directoryId);
  if (!directory) throw forbidden(`Directory ${directoryId} is not a directory of this organization`);
  return directory;
}

/** The named directories in the order asked; any that is not the organization's is 403. */
export async function listDirectoriesByIds(
  organizationId: string,
  ids: readonly string[],
): Promise<DirectoryView[]> {
  const directories = await store.getDirectories(organizationId, ids);
  const missing = ids.find((id) => !directories.has(id));
  if (missing) throw forbidden(`Directory ${missing} is not a directory of this organization`);
  return [...new Set(ids)].map((id) => directories.get(id) as DirectoryView);
}
