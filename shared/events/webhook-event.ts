import * as v from 'valibot';
import { apiIdentities } from '#shared/protocol/dialect';

/**
 * A small message on the webhook queue, put there after the state change it announces is stored. It names what
 * happened and who the webhook is for (the entity whose request caused it, and the identity that request addressed);
 * the worker loads current state and builds, signs and posts the webhook (docs/protocol.md#webhooks).
 */
const webhookEventSchema = v.variant('kind', [
  v.object({
    kind: v.literal('authorization-response'),
    authRequestId: v.string(),
  }),
  v.object({
    kind: v.literal('session-ended'),
    serviceId: v.string(),
    userId: v.string(),
    audience: v.string(),
    identity: v.picklist(apiIdentities),
    /** ISO 8601 UTC. */
    endedAt: v.string(),
  }),
  v.object({
    kind: v.literal('device-link-completion'),
    organizationId: v.string(),
    directoryId: v.string(),
    deviceId: v.string(),
    audience: v.string(),
    identity: v.picklist(apiIdentities),
    /** The audience's key the link request's answer went to; optional, as events queued before it lack it. */
    audienceKid: v.optional(v.string()),
  }),
]);

export type WebhookEvent = v.InferOutput<typeof webhookEventSchema>;

/** The message attribute that says why a message is in the DLQ. */
export const deadLetterReasonAttribute = 'reason';

/** An event as it travels: which delivery attempt this is (the first when absent). */
export interface QueuedWebhookEvent {
  readonly event: WebhookEvent;
  readonly attempt: number;
}

const queuedSchema = v.object({
  attempt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
});

export function queuedMessageBody(event: WebhookEvent, attempt = 1): string {
  return JSON.stringify(attempt === 1 ? event : { ...event, attempt });
}

/** Reads a queue message body; undefined when it is not an event this service wrote. */
export function parseQueuedMessage(body: string): QueuedWebhookEvent | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const event = v.safeParse(webhookEventSchema, json);
  const queued = v.safeParse(queuedSchema, json);
  if (!event.success || !queued.success) return undefined;
  return { event: event.output, attempt: queued.output.attempt };
}

/** What names an event in logs and listings: its kind and ids, nothing secret. */
export function describeEvent(event: WebhookEvent): Record<string, string> {
  switch (event.kind) {
    case 'authorization-response':
      return { kind: event.kind, authRequestId: event.authRequestId };
    case 'session-ended':
      return { kind: event.kind, serviceId: event.serviceId };
    case 'device-link-completion':
      return { kind: event.kind, directoryId: event.directoryId, deviceId: event.deviceId };
  }
}
