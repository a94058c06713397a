import { randomUUID } from 'node:crypto';
import type { DirectoryRecord } from '#shared/domain/directory';
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
export async function requireDirectory(
  organizationId: string,
  directoryId: string,
): Promise<DirectoryRecord> {
  const directory = await store.getDirectory(organizationId, directoryId);
  if (!directory) throw forbidden(`Directory ${directoryId} is not a directory of this organization`);
  return directory;
}
