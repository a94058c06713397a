import type { PushChannel } from '#shared/push/channel';

/**
 * What a push says. Lock screens are public: a title and a line the service chose (or the service's name and a
 * default line), the request's id so the app can fetch it, nothing else about the user or the request.
 */
export type PushNotification = AuthRequestNotification | LinkRequestNotification | UnlinkedNotification;

interface ShownPush {
  readonly title: string;
  readonly body: string;
  /** How long the push service may hold it for an offline device: the request's remaining lifetime for a prompt. */
  readonly ttlSeconds: number;
}

export interface AuthRequestNotification extends ShownPush {
  /** `prompt`: a request waits; `ended`: replace its prompt with a visible "answered elsewhere" / "expired" line. */
  readonly kind: 'prompt' | 'ended';
  readonly authRequestId: string;
}

/** A new device of the user waits for confirmation (docs/protocol.md#device-confirmation): always shown. */
export interface LinkRequestNotification extends ShownPush {
  readonly kind: 'link-request';
  /** The new device's id, which GET /device/v3/link-requests lists. */
  readonly deviceId: string;
}

/**
 * A device of the user was unlinked by the directory: the device itself is told before its channel goes, the user's
 * other devices that one was removed. Always shown.
 */
export interface UnlinkedNotification extends ShownPush {
  readonly kind: 'unlinked';
  /** The unlinked device's id: never shown, it names what the push collapses on. */
  readonly deviceId: string;
}

/**
 * What a push is about, as every provider's payload names it beside its text, and the id its pushes collapse on: the
 * request's, or the new device's.
 */
export function pushAbout(notification: PushNotification): {
  readonly fields: Readonly<Record<string, string>>;
  readonly collapseId: string;
} {
  if (notification.kind === 'unlinked')
    return {
      fields: { type: 'device_unlinked', device_id: notification.deviceId },
      collapseId: notification.deviceId,
    };
  if (notification.kind === 'link-request')
    return {
      fields: { type: 'device_link_request', device_id: notification.deviceId },
      collapseId: notification.deviceId,
    };
  return {
    fields: {
      type: notification.kind === 'prompt' ? 'auth_request' : 'auth_request_ended',
      auth_request: notification.authRequestId,
    },
    collapseId: notification.authRequestId,
  };
}

/**
 * How one attempt went. `gone`: the push service says the channel no longer exists (remove it at once).
 * `retry-after`: worth another attempt (timeout, 5xx, 429), after `seconds` when the service said so. `failed`:
 * another attempt would fail the same way (any other 4xx, a refused endpoint).
 */
export type PushResult =
  | { readonly outcome: 'delivered'; readonly status: number }
  | { readonly outcome: 'gone'; readonly status: number }
  | {
      readonly outcome: 'retry-after';
      readonly reason: string;
      readonly status?: number;
      readonly seconds?: number;
    }
  | { readonly outcome: 'failed'; readonly reason: string; readonly status?: number };

/** One push service: one file each, so a channel type is added by adding a provider. */
export interface PushProvider<Channel extends PushChannel = PushChannel> {
  send(channel: Channel, notification: PushNotification): Promise<PushResult>;
}
