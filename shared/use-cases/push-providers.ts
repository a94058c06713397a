import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { currentVapidKeys } from '#shared/api-keys/current-vapid-keys';
import type { ApnsChannel, FcmChannel, PushChannel, WebPushChannel } from '#shared/push/channel';
import { apnsProvider } from '#shared/push/apns';
import { fcmProvider } from '#shared/push/fcm';
import type { PushProvider } from '#shared/push/provider';
import type { PushWorkerSettings } from '#shared/push/settings';
import { webPushProvider } from '#shared/push/web-push';
import { getSealedPushCredentials } from '#shared/store/push-credentials';
import { openPushCredentials } from '#shared/use-cases/push-credentials';
import type { Resolver } from '#shared/webhooks/destination';

/** The provider for a channel, or why there is none (an operator's matter: the push goes to the DLQ with it). */
export type ProviderFor = (channel: PushChannel) => Promise<PushProvider | string>;

interface DirectoryProviders {
  /** The sealed credentials they were made from: when these change, the providers are made again. */
  readonly made: string;
  readonly apns?: PushProvider<ApnsChannel> & { close(): void };
  readonly fcm?: PushProvider<FcmChannel>;
  readonly fcmUnusable?: string;
}

// Kept for the container's life, so an APNs connection and its token, and an FCM access token, serve many pushes.
const maxDirectoriesKept = 64;
const byDirectory = new Map<string, DirectoryProviders>();
let webPush: { readonly publicKey: string; readonly provider: PushProvider<WebPushChannel> } | undefined;

/**
 * Picks each channel's provider for one directory's pushes: Web Push with the deployment's VAPID key, APNs with the
 * directory's token key (Apple's recommended way) or else its certificate, FCM with its service account. The
 * directory's credentials are read once per call, and only when a channel needs them.
 */
export function pushProviders(
  directoryId: string,
  settings: PushWorkerSettings,
  resolve?: Resolver,
): ProviderFor {
  let directory: Promise<DirectoryProviders> | undefined;
  return async (channel) => {
    if (channel.type === 'webpush') {
      const vapid = await currentVapidKeys();
      if (webPush?.publicKey !== vapid.publicKey) {
        webPush = {
          publicKey: vapid.publicKey,
          provider: webPushProvider({
            vapid,
            subject: settings.vapidSubject,
            policy: settings.policy,
            timeoutMs: settings.timeoutMs,
            ...(resolve ? { resolve } : {}),
          }),
        };
      }
      return webPush.provider;
    }
    directory ??= directoryProviders(directoryId, settings);
    const providers = await directory;
    if (channel.type === 'apns')
      return (providers.apns as PushProvider | undefined) ?? 'the directory has no APNs credentials';
    if (providers.fcm) return providers.fcm;
    return providers.fcmUnusable
      ? `the directory has no FCM credentials: its ${providers.fcmUnusable}`
      : 'the directory has no FCM credentials';
  };
}

async function directoryProviders(
  directoryId: string,
  settings: PushWorkerSettings,
): Promise<DirectoryProviders> {
  const sealed = await getSealedPushCredentials(directoryId);
  const made = JSON.stringify(sealed);
  const cached = byDirectory.get(directoryId);
  if (cached?.made === made) return cached;
  cached?.apns?.close();
  const hashKey = await currentHashKey();
  const credentials = openPushCredentials(hashKey, sealed);
  const apnsCredentials = credentials.apnsToken ?? credentials.apnsCertificate;
  const ca = settings.ca === undefined ? {} : { ca: settings.ca };
  const providers: DirectoryProviders = {
    made,
    ...(apnsCredentials && {
      apns: apnsProvider({
        credentials: apnsCredentials,
        urls: settings.apnsUrls,
        timeoutMs: settings.timeoutMs,
        ...ca,
      }),
    }),
    ...(credentials.fcm && {
      fcm: fcmProvider({
        account: credentials.fcm,
        sendUrl: settings.fcmUrl,
        tokenUrl: settings.fcmTokenUrl,
        timeoutMs: settings.timeoutMs,
        ...ca,
      }),
    }),
    ...(credentials.fcmUnusable && { fcmUnusable: credentials.fcmUnusable }),
  };
  byDirectory.delete(directoryId);
  if (byDirectory.size >= maxDirectoriesKept) {
    const [oldest] = byDirectory;
    oldest?.[1].apns?.close();
    if (oldest) byDirectory.delete(oldest[0]);
  }
  byDirectory.set(directoryId, providers);
  return providers;
}
