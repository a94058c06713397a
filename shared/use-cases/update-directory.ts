import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { describeAndroidKey, inspectAndroidKey, sealAndroidKey } from '#shared/domain/android-key';
import { InvalidP12Error, inspectIosP12, type IosP12Inspection } from '#shared/domain/apns-credentials';
import type { DirectoryChanges } from '#shared/domain/directory';
import { invalidArgument } from '#shared/errors';
import { updateSealedPushCredentials } from '#shared/store/push-credentials';
import { requireDirectory } from '#shared/use-cases/directories';
import {
  applyDirectoryChanges,
  type PlainDirectoryUpdate,
  plainDirectoryChanges,
} from '#shared/use-cases/directory-changes';
import { sealPushCredentials } from '#shared/use-cases/push-credentials';

// Apart from the other directory use cases so that only the update function carries the PKCS#12 parser (about 30 KB).

export interface DirectoryUpdate extends PlainDirectoryUpdate {
  /**
   * Any string, as LaunchKey took: a Google service account's JSON key is kept sealed and the directory shows which
   * account it is; anything else cannot push, and is kept sealed and shown as given.
   */
  readonly androidKey?: string | null;
  /** Base64 PKCS#12; its certificate and key are kept sealed, and the directory shows the certificate's fingerprint. */
  readonly iosP12?: string | null;
}

/**
 * Applies the fields present: null clears android_key, ios_p12 and webhook_url, and leaves the flags as they are. The
 * push credentials are stored (sealed, apart from the record the SDKs read) before the record shows them.
 */
export async function updateDirectory(
  organizationId: string,
  directoryId: string,
  update: DirectoryUpdate,
): Promise<void> {
  // Ownership first: another organization's directory answers as an unknown one, before any costly parsing.
  await requireDirectory(organizationId, directoryId);
  const ios = update.iosP12 == null ? update.iosP12 : inspect(update.iosP12);
  const android = update.androidKey == null ? update.androidKey : inspectAndroidKey(update.androidKey);
  let androidKey: DirectoryChanges['androidKey'];
  if (ios !== undefined || android !== undefined) {
    const hashKey = await currentHashKey();
    await updateSealedPushCredentials(
      directoryId,
      sealPushCredentials(hashKey, {
        ...(ios === undefined ? {} : { apnsCertificate: ios?.usable ? ios.credentials : null }),
        ...(android === undefined
          ? {}
          : {
              fcm: android?.usable ? android.account : null,
              fcmUnusable: android && !android.usable ? `android_key ${android.reason}` : null,
            }),
      }),
    );
    // The record shows which service account it is, or keeps the string as given, sealed.
    if (android && update.androidKey != null) {
      androidKey = android.usable
        ? describeAndroidKey(android.account)
        : sealAndroidKey(hashKey, update.androidKey);
    }
  }
  const changes: DirectoryChanges = {
    ...plainDirectoryChanges(update),
    ...(update.androidKey === undefined ? {} : { androidKey: androidKey ?? null }),
    ...(ios === undefined ? {} : { iosCertificateFingerprint: ios?.fingerprint ?? null }),
  };
  await applyDirectoryChanges(organizationId, directoryId, changes);
}

/** LaunchKey took any password-free PKCS#12 and showed its fingerprint; one that cannot push is still taken. */
function inspect(p12: string): IosP12Inspection {
  try {
    return inspectIosP12(p12);
  } catch (error) {
    if (error instanceof InvalidP12Error) throw invalidArgument(`ios_p12: ${error.message}`, error);
    throw error;
  }
}
