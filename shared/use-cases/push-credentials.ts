import { randomBytes } from 'node:crypto';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import type { FcmServiceAccount } from '#shared/domain/android-key';
import type { ApnsCertificateCredentials, ApnsTokenCredentials } from '#shared/domain/apns-credentials';
import { seal, unseal } from '#shared/domain/user-identity';
import {
  getSealedPushCredentials,
  type SealedPushCredentialChanges,
  type SealedPushCredentials,
} from '#shared/store/push-credentials';

/** A directory's credentials to push to its own apps, opened. */
export interface DirectoryPushCredentials {
  readonly apnsCertificate?: ApnsCertificateCredentials;
  readonly apnsToken?: ApnsTokenCredentials;
  readonly fcm?: FcmServiceAccount;
  /** Why the directory's `android_key` cannot push, where it has one that is not a service account. */
  readonly fcmUnusable?: string;
}

type Sealed = Exclude<keyof SealedPushCredentials, 'fcmUnusable'>;

type Opened = {
  readonly [Name in Sealed]-?: NonNullable<DirectoryPushCredentials[Name]>;
};

// One purpose each, so a sealed value cannot be passed off as another kind.
const purposes: Readonly<Record<Sealed, string>> = {
  apnsCertificate: 'push/apns-certificate',
  apnsToken: 'push/apns-token',
  fcm: 'push/fcm',
};

/** Seals the credentials present for storing; null stays null (remove). `fcmUnusable` is kept as it is. */
export function sealPushCredentials(
  hashKey: Buffer,
  changes: { readonly [Name in keyof Opened]?: Opened[Name] | null } & {
    readonly fcmUnusable?: string | null;
  },
): SealedPushCredentialChanges {
  return Object.fromEntries(
    Object.entries(changes).map(([name, value]) => [
      name,
      value === null || value === undefined || name === 'fcmUnusable'
        ? value
        : seal(hashKey, purposes[name as Sealed], JSON.stringify(value), randomBytes(12)),
    ]),
  );
}

/** Opens what is stored; a value that does not open (another deployment's hash key) counts as absent. */
export function openPushCredentials(
  hashKey: Buffer,
  sealed: SealedPushCredentials,
): DirectoryPushCredentials {
  const { fcmUnusable, ...sealedOnes } = sealed;
  const opened: Record<string, unknown> = fcmUnusable === undefined ? {} : { fcmUnusable };
  for (const [name, value] of Object.entries(sealedOnes) as [Sealed, string][]) {
    try {
      opened[name] = JSON.parse(unseal(hashKey, purposes[name], value));
    } catch {
      // Left out: the worker reports the directory as having no such credentials.
    }
  }
  return opened;
}

/** The directory's push credentials, opened with the deployment's hash key. */
export async function directoryPushCredentials(directoryId: string): Promise<DirectoryPushCredentials> {
  const [hashKey, sealed] = await Promise.all([currentHashKey(), getSealedPushCredentials(directoryId)]);
  return openPushCredentials(hashKey, sealed);
}
