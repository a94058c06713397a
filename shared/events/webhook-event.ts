import type { ApiIdentity } from '#shared/protocol/dialect';

/**
 * A small message on the webhook queue, put there after the state change it announces is stored. It names what
 * happened and who the webhook is for (the entity whose request caused it, and the identity that request addressed);
 * the worker loads current state and builds, signs and posts the webhook (sdk-compatibility §10).
 */
export type WebhookEvent =
  | {
      readonly kind: 'authorization-response';
      readonly authRequestId: string;
    }
  | {
      readonly kind: 'session-ended';
      readonly serviceId: string;
      readonly userId: string;
      readonly audience: string;
      readonly identity: ApiIdentity;
      /** ISO 8601 UTC. */
      readonly endedAt: string;
    }
  | {
      readonly kind: 'device-link-completion';
      readonly directoryId: string;
      readonly deviceId: string;
      readonly audience: string;
      readonly identity: ApiIdentity;
    };
