import * as v from 'valibot';

/**
 * A device's channel as its record holds it, carried only by an unlink's message: the device is gone when the worker
 * runs. The queue is encrypted at rest and only the push worker receives from it, so the channel is no more exposed
 * there than in the table, and the message is deleted once delivered.
 */
const pushChannelSchema = v.variant('type', [
  v.object({
    type: v.literal('webpush'),
    endpoint: v.string(),
    p256dh: v.string(),
    auth: v.string(),
    page: v.optional(v.string()),
    registered: v.string(),
  }),
  v.object({
    type: v.literal('apns'),
    token: v.string(),
    environment: v.picklist(['production', 'sandbox']),
    registered: v.string(),
  }),
  v.object({ type: v.literal('fcm'), token: v.string(), registered: v.string() }),
]);

/**
 * A small message on the push queue. It names the auth request and what happened to it; the worker loads current
 * state, finds the devices that have a channel and pushes to each. A message that names a device is a retry for that
 * device alone (docs/protocol.md#push).
 */
const pushEventSchema = v.variant('kind', [
  v.object({
    /** `prompt`: the request was created; `ended`: it was answered, cancelled or has expired. */
    kind: v.picklist(['prompt', 'ended']),
    authRequestId: v.string(),
    deviceId: v.optional(v.string()),
    /**
     * Set on the one `ended` message a create queues to arrive at the request's expiry: by then the request is over
     * whatever happened, so health counts each request there, once.
     */
    expiry: v.optional(v.literal(true)),
  }),
  v.object({
    /** A new device of the user waits for confirmation: the user's devices that may confirm it are told. */
    kind: v.literal('link-request'),
    directoryId: v.string(),
    identifier: v.string(),
    linkingDeviceId: v.string(),
    deviceId: v.optional(v.string()),
  }),
  v.object({
    /**
     * The directory unlinked a device: it is told, through the channel it had (carried here, since the device is gone
     * by delivery time), and so are the user's other devices.
     */
    kind: v.literal('unlinked'),
    directoryId: v.string(),
    identifier: v.string(),
    unlinkedDeviceId: v.string(),
    channel: v.optional(pushChannelSchema),
    deviceId: v.optional(v.string()),
  }),
]);

export type PushEvent = v.InferOutput<typeof pushEventSchema>;

/** An event as it travels: which attempt this is (the first when absent). */
export interface QueuedPushEvent {
  readonly event: PushEvent;
  readonly attempt: number;
}

const queuedSchema = v.object({
  attempt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
});

export function queuedPushBody(event: PushEvent, attempt = 1): string {
  return JSON.stringify(attempt === 1 ? event : { ...event, attempt });
}

/** Reads a queue message body; undefined when it is not a push event this service wrote. */
export function parseQueuedPush(body: string): QueuedPushEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const event = v.safeParse(pushEventSchema, json);
  const queued = v.safeParse(queuedSchema, json);
  if (!event.success || !queued.success) return undefined;
  return { event: event.output, attempt: queued.output.attempt };
}

/** What names a push event in logs and listings: its ids, nothing secret. */
export function describePushEvent(event: PushEvent): Record<string, string> {
  return {
    kind: event.kind,
    ...(event.kind === 'link-request'
      ? { directoryId: event.directoryId, linkingDeviceId: event.linkingDeviceId }
      : event.kind === 'unlinked'
        ? { directoryId: event.directoryId, unlinkedDeviceId: event.unlinkedDeviceId }
        : { authRequestId: event.authRequestId }),
    ...(event.deviceId ? { deviceId: event.deviceId } : {}),
  };
}
