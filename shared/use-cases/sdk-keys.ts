import { randomUUID } from 'node:crypto';
import { maxSdkKeysPerDirectory } from '#shared/domain/limits';
import { ApiError, invalidArgument } from '#shared/errors';
import { addSdkKey, removeSdkKey } from '#shared/store/directories';
import { requireDirectory } from '#shared/use-cases/directories';

/**
 * Generates a new SDK key (a UUID) for a directory the organization owns; one that has `maxSdkKeysPerDirectory`
 * already is ARG-001.
 */
export async function generateSdkKey(organizationId: string, directoryId: string): Promise<string> {
  await requireDirectory(organizationId, directoryId);
  const sdkKey = randomUUID();
  if ((await addSdkKey(organizationId, directoryId, sdkKey)) === 'full') {
    throw invalidArgument(
      `The directory already has ${maxSdkKeysPerDirectory} SDK keys; remove one before generating another`,
    );
  }
  return sdkKey;
}

export async function listSdkKeys(organizationId: string, directoryId: string): Promise<readonly string[]> {
  return (await requireDirectory(organizationId, directoryId)).sdk_keys;
}

/** Removes an SDK key: one that is not the directory's is ORG-006, the last one ORG-005. */
export async function deleteSdkKey(
  organizationId: string,
  directoryId: string,
  sdkKey: string,
): Promise<void> {
  await requireDirectory(organizationId, directoryId);
  const outcome = await removeSdkKey(organizationId, directoryId, sdkKey);
  if (outcome === 'not-a-member')
    throw new ApiError('ORG-006', `SDK key ${sdkKey} does not belong to this directory`);
  if (outcome === 'last') throw new ApiError('ORG-005', 'The last SDK key of a directory cannot be removed');
}
