import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { openAndroidKey } from '#shared/domain/android-key';
import type { DirectoryRecord, DirectoryView, SealedAndroidKey } from '#shared/domain/directory';
import { forbidden } from '#shared/errors';
import * as store from '#shared/store/directories';

// Apart from the other directory use cases: only the functions that show directories read the hash key.

/** The organization's directories as the wire shows them. */
export async function listDirectories(organizationId: string): Promise<DirectoryView[]> {
  return showDirectories(await store.listDirectories(organizationId));
}

/** The named directories in the order asked, as the wire shows them; any that is not the organization's is 403. */
export async function listDirectoriesByIds(
  organizationId: string,
  ids: readonly string[],
): Promise<DirectoryView[]> {
  const directories = await store.getDirectories(organizationId, ids);
  const missing = ids.find((id) => !directories.has(id));
  if (missing) throw forbidden(`Directory ${missing} is not a directory of this organization`);
  return showDirectories([...new Set(ids)].map((id) => directories.get(id) as DirectoryRecord));
}

/** Opens each `android_key` kept sealed; the hash key is read only when there is one. */
function showDirectories(records: readonly DirectoryRecord[]): Promise<DirectoryView[]> {
  let hashKey: Promise<Buffer> | undefined;
  return Promise.all(
    records.map(async (record) => {
      const { android_key } = record;
      if (typeof android_key === 'string' || android_key === null) return { ...record, android_key };
      hashKey ??= currentHashKey();
      return { ...record, android_key: opened(await hashKey, android_key) };
    }),
  );
}

function opened(hashKey: Buffer, sealed: SealedAndroidKey): string | null {
  try {
    return openAndroidKey(hashKey, sealed);
  } catch {
    // Sealed under another deployment's hash key: absent, as the push credentials beside it then count.
    return null;
  }
}
