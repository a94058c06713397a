import webPush from 'web-push';
import type { VapidKeys } from '#shared/api-keys/vapid-keys';
import type { WebPushChannel } from '#shared/push/channel';
import { postPush, retryAfterSeconds } from '#shared/push/post';
import { type PushNotification, type PushProvider, type PushResult, pushAbout } from '#shared/push/provider';
import {
  type DestinationPolicy,
  DestinationRefused,
  type Resolver,
  resolveDestination,
} from '#shared/webhooks/destination';

export interface WebPushOptions {
  readonly vapid: VapidKeys;
  /** The VAPID `sub`: a real `mailto:` or `https:` URL. */
  readonly subject: string;
  readonly policy: DestinationPolicy;
  readonly timeoutMs: number;
  readonly resolve?: Resolver;
}

/** The RFC 8030 Topic that collapses every push about one request: its id without hyphens (32 characters). */
export function pushTopic(authRequestId: string): string {
  return authRequestId.replace(/-/g, '').slice(0, 32);
}

/**
 * The most a message may hold before encryption: RFC 8030's 4096 bytes less RFC 8188's aes128gcm header (86 bytes
 * with a P-256 key id), its padding delimiter and its tag (17).
 */
export const maxWebPushPlaintextBytes = 4096 - 86 - 17;

/**
 * What the service worker receives, decrypted. `tag` lets it replace the request's notification in place; an `ended`
 * push still carries a visible title and body, since browsers (iOS first) revoke subscriptions that get pushes showing
 * no notification.
 *
 * With the page the channel's notifications open, the message is also a declarative push message (the Push API's
 * Declarative Web Push: `web_push: 8030` and a `notification` with a `navigate` URL), which Safari and iOS Home Screen
 * apps show by themselves even when the service worker was evicted; `mutable` lets a worker that runs see it first.
 * Other browsers ignore the members they do not know and hand the message to the worker as before, which reads the
 * same top-level fields. Those fields repeat the title and line only while the message stays within Web Push's size.
 */
export function webPushPayload(notification: PushNotification, page?: string): string {
  const about = pushAbout(notification);
  const shown = { title: notification.title, body: notification.body, tag: about.collapseId };
  if (!page) return JSON.stringify({ ...about.fields, ...shown });
  const navigate =
    notification.kind === 'prompt'
      ? `${page}#request=${encodeURIComponent(notification.authRequestId)}`
      : page;
  const declarative = {
    web_push: 8030,
    notification: {
      ...shown,
      navigate,
      // A prompt and a new device wait for an answer; what ended or was unlinked is only news.
      require_interaction: notification.kind === 'prompt' || notification.kind === 'link-request',
    },
    mutable: true,
    ...about.fields,
  };
  const both = JSON.stringify({ ...declarative, ...shown });
  return Buffer.byteLength(both) <= maxWebPushPlaintextBytes ? both : JSON.stringify(declarative);
}

/**
 * Web Push (RFC 8030) with an RFC 8291 aes128gcm payload and an RFC 8292 VAPID JWT, made by `web-push`; sent by the
 * worker's own request to the address the guard checked, so DNS cannot move it elsewhere between check and send.
 */
export function webPushProvider(options: WebPushOptions): PushProvider<WebPushChannel> {
  return {
    async send(channel, notification): Promise<PushResult> {
      let destination;
      try {
        destination = await resolveDestination(channel.endpoint, options.policy, options.resolve);
      } catch (error) {
        if (!(error instanceof DestinationRefused)) throw error;
        return error.transient
          ? { outcome: 'retry-after', reason: error.message }
          : { outcome: 'failed', reason: `refused: ${error.message}` };
      }
      const details = webPush.generateRequestDetails(
        { endpoint: channel.endpoint, keys: { p256dh: channel.p256dh, auth: channel.auth } },
        webPushPayload(notification, channel.page),
        {
          vapidDetails: {
            subject: options.subject,
            publicKey: options.vapid.publicKey,
            privateKey: options.vapid.privateKey,
          },
          TTL: Math.max(0, Math.floor(notification.ttlSeconds)),
          urgency: notification.kind === 'ended' ? 'normal' : 'high',
          topic: pushTopic(pushAbout(notification).collapseId),
          contentEncoding: 'aes128gcm',
        },
      );
      const headers = Object.fromEntries(
        Object.entries(details.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
      );
      delete headers['content-length'];
      const answer = await postPush({
        destination,
        headers,
        body: details.body ?? Buffer.alloc(0),
        timeoutMs: options.timeoutMs,
      });
      if (!answer.answered) return { outcome: 'retry-after', reason: answer.reason };
      const { status } = answer;
      if (status >= 200 && status < 300) return { outcome: 'delivered', status };
      // RFC 8030 §7.3: 404 and 410 say the subscription expired or was removed.
      if (status === 404 || status === 410) return { outcome: 'gone', status };
      if (status === 429 || status >= 500) {
        const seconds = retryAfterSeconds(answer.retryAfter);
        return {
          outcome: 'retry-after',
          reason: `the push service answered ${status}`,
          status,
          ...(seconds === undefined ? {} : { seconds }),
        };
      }
      return { outcome: 'failed', reason: `the push service answered ${status}`, status };
    },
  };
}
