import type { DirectoryChanges } from '#shared/domain/directory';
import { InvalidP12Error, iosCertificateFingerprint } from '#shared/domain/ios-p12';
import { forbidden, invalidArgument } from '#shared/errors';
import * as store from '#shared/store/directories';
import { requireDirectory } from '#shared/use-cases/directories';

// Apart from the other directory use cases so that only the update function carries the PKCS#12 parser (about 30 KB).

export interface DirectoryUpdate {
  readonly active?: boolean | null;
  readonly androidKey?: string | null;
  /** Base64 PKCS#12; only its certificate's fingerprint is kept. */
  readonly iosP12?: string | null;
  readonly denialContextInquiryEnabled?: boolean | null;
  readonly webhookUrl?: string | null;
}

/** Applies the fields present: null clears android_key, ios_p12 and webhook_url, and leaves the flags as they are. */
export async function updateDirectory(
  organizationId: string,
  directoryId: string,
  update: DirectoryUpdate,
): Promise<void> {
  await requireDirectory(organizationId, directoryId);
  const changes: DirectoryChanges = {
    ...(update.active == null ? {} : { active: update.active }),
    ...(update.denialContextInquiryEnabled == null
      ? {}
      : { denialContextInquiryEnabled: update.denialContextInquiryEnabled }),
    ...(update.androidKey === undefined ? {} : { androidKey: update.androidKey }),
    ...(update.webhookUrl === undefined ? {} : { webhookUrl: update.webhookUrl }),
    ...(update.iosP12 === undefined ? {} : { iosCertificateFingerprint: fingerprintOf(update.iosP12) }),
  };
  if (!(await store.updateDirectory(organizationId, directoryId, changes))) {
    throw forbidden(`Directory ${directoryId} is not a directory of this organization`);
  }
}

function fingerprintOf(p12: string | null): string | null {
  if (p12 === null) return null;
  try {
    return iosCertificateFingerprint(p12);
  } catch (error) {
    if (error instanceof InvalidP12Error) throw invalidArgument(`ios_p12: ${error.message}`, error);
    throw error;
  }
}
