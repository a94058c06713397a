import { apnsTokenCredentials } from '#shared/domain/apns-credentials';
import { getSealedPushCredentials, updateSealedPushCredentials } from '#shared/store/push-credentials';
import {
  type DirectoryPushCredentials,
  openPushCredentials,
  sealPushCredentials,
} from '#shared/use-cases/push-credentials';
import { requireDirectoryHead } from '#shared/use-cases/directory-settings';

/** What the admin CLI shows of a directory's push credentials: what each can send to, never a key. */
export interface DirectoryPushView {
  readonly directory_id: string;
  /** The app the certificate of `ios_p12` pushes to, or why it cannot push. */
  readonly apns_certificate: string;
  readonly apns_token_key: string;
  /** Which of the two APNs pushes use: the token key when there is one, as Apple recommends. */
  readonly apns_uses: string;
  readonly fcm: string;
}

/** The directory's push credentials as an operator sees them. */
export async function describeDirectoryPush(
  directoryId: string,
  hashKey: Buffer,
): Promise<DirectoryPushView> {
  await requireDirectoryHead(directoryId);
  return view(directoryId, openPushCredentials(hashKey, await getSealedPushCredentials(directoryId)));
}

/**
 * Gives a directory a token-based APNs key (.p8 with its key id, team id and the app's bundle id): Apple's
 * recommended way, which never expires, unlike a certificate. Kept sealed beside the certificate; pushes use it first.
 */
export async function setApnsTokenKey(
  directoryId: string,
  hashKey: Buffer,
  input: { keyPem: string; keyId: string; teamId: string; topic: string },
): Promise<DirectoryPushView> {
  await requireDirectoryHead(directoryId);
  const apnsToken = apnsTokenCredentials(input);
  await updateSealedPushCredentials(directoryId, sealPushCredentials(hashKey, { apnsToken }));
  return describeDirectoryPush(directoryId, hashKey);
}

export async function removeApnsTokenKey(directoryId: string, hashKey: Buffer): Promise<DirectoryPushView> {
  await requireDirectoryHead(directoryId);
  await updateSealedPushCredentials(directoryId, { apnsToken: null });
  return describeDirectoryPush(directoryId, hashKey);
}

function view(directoryId: string, credentials: DirectoryPushCredentials): DirectoryPushView {
  const { apnsCertificate, apnsToken, fcm, fcmUnusable } = credentials;
  return {
    directory_id: directoryId,
    apns_certificate: apnsCertificate ? `topic ${apnsCertificate.topic}` : 'none',
    apns_token_key: apnsToken
      ? `key ${apnsToken.keyId}, team ${apnsToken.teamId}, topic ${apnsToken.topic}`
      : 'none',
    apns_uses: apnsToken ? 'token key' : apnsCertificate ? 'certificate' : 'nothing: APNs pushes fail',
    fcm: fcm
      ? `project ${fcm.projectId}, ${fcm.clientEmail}`
      : fcmUnusable
        ? `none, FCM pushes fail: ${fcmUnusable}`
        : 'none',
  };
}
