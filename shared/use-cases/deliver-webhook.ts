import { apiKeyRing } from '#shared/api-keys/current-key-ring';
import type { WebhookEvent } from '#shared/events/webhook-event';
import { formatEntity } from '#shared/protocol/entity';
import { signRequestJwt } from '#shared/protocol/request-jwt';
import { buildWebhook } from '#shared/use-cases/webhooks';
import {
  DestinationRefused,
  type DestinationPolicy,
  type Resolver,
  resolveDestination,
} from '#shared/webhooks/destination';
import { postWebhook } from '#shared/webhooks/post';

export interface DeliverySettings {
  readonly policy: DestinationPolicy;
  readonly timeoutMs: number;
  readonly resolve?: Resolver;
}

export type DeliveryOutcome =
  | { readonly outcome: 'delivered'; readonly destination: string; readonly status: number }
  | { readonly outcome: 'no-destination' }
  /** Worth another attempt later: the receiver failed, timed out or could not be reached. */
  | {
      readonly outcome: 'retry';
      readonly destination: string;
      readonly reason: string;
      readonly status?: number;
    }
  /** Another attempt would fail the same way: the DLQ, with the reason. */
  | { readonly outcome: 'dead'; readonly destination?: string; readonly reason: string };

/** What a log may say of a URL: no query string, which may carry a receiver's secret. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * One delivery attempt: builds the webhook from current state, checks its destination, signs it like a request from
 * the API (`iss` the identity, `aud` the causing entity, `sub` the service or directory, `request` binding POST, the
 * path and the body hash) and posts it with the JWT in both header dialects.
 */
export async function deliverWebhook(
  event: WebhookEvent,
  settings: DeliverySettings,
  now = new Date(),
): Promise<DeliveryOutcome> {
  const built = await buildWebhook(event, now);
  if (built.build === 'no-destination') return { outcome: 'no-destination' };
  if (built.build === 'undeliverable') return { outcome: 'dead', reason: built.reason };
  const { webhook } = built;
  const destinationName = describeUrl(webhook.url);
  let destination;
  try {
    destination = await resolveDestination(webhook.url, settings.policy, settings.resolve);
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    return error.transient
      ? { outcome: 'retry', destination: destinationName, reason: error.message }
      : { outcome: 'dead', destination: destinationName, reason: `refused: ${error.message}` };
  }
  const ring = await apiKeyRing();
  const token = await signRequestJwt({
    signingKey: ring.current,
    issuer: webhook.identity,
    audience: webhook.audience,
    subject: formatEntity(webhook.subject),
    binding: { method: 'POST', path: destination.url.pathname, body: webhook.body },
    now: Math.floor(Date.now() / 1000),
    lifetime: 30,
  });
  const posted = await postWebhook({
    destination,
    headers: { 'content-type': webhook.contentType, 'x-iov-jwt': token, 'x-api-jwt': token },
    body: webhook.body,
    timeoutMs: settings.timeoutMs,
  });
  if (posted.delivered) return { outcome: 'delivered', destination: destinationName, status: posted.status };
  return {
    outcome: 'retry',
    destination: destinationName,
    reason: posted.reason,
    ...(posted.status === undefined ? {} : { status: posted.status }),
  };
}
