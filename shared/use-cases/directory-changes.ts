import type { DirectoryChanges } from '#shared/domain/directory';
import { forbidden } from '#shared/errors';
import * as store from '#shared/store/directories';
import { requireDirectory } from '#shared/use-cases/directories';

// The part of a directory update that seals nothing, apart from update-directory.ts, so that a function that changes
// only these (the console's) carries neither the PKCS#12 parser nor the hash key's secret client.

/** What of a directory changes without sealing anything: null leaves the flags as they are and clears the URL. */
export interface PlainDirectoryUpdate {
  readonly active?: boolean | null;
  readonly denialContextInquiryEnabled?: boolean | null;
  readonly webhookUrl?: string | null;
}

export function plainDirectoryChanges(update: PlainDirectoryUpdate): DirectoryChanges {
  return {
    ...(update.active == null ? {} : { active: update.active }),
    ...(update.denialContextInquiryEnabled == null
      ? {}
      : { denialContextInquiryEnabled: update.denialContextInquiryEnabled }),
    ...(update.webhookUrl === undefined ? {} : { webhookUrl: update.webhookUrl }),
  };
}

/** Writes the changes to the organization's directory; another organization's, or none, is 403. */
export async function applyDirectoryChanges(
  organizationId: string,
  directoryId: string,
  changes: DirectoryChanges,
): Promise<void> {
  if (!(await store.updateDirectory(organizationId, directoryId, changes))) {
    throw forbidden(`Directory ${directoryId} is not a directory of this organization`);
  }
}

/** A directory update without push credentials: the signed API's update, for the fields it holds. */
export async function updatePlainDirectory(
  organizationId: string,
  directoryId: string,
  update: PlainDirectoryUpdate,
): Promise<void> {
  await requireDirectory(organizationId, directoryId);
  await applyDirectoryChanges(organizationId, directoryId, plainDirectoryChanges(update));
}
