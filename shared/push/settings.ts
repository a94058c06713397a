import { positiveIntegerEnv } from '#shared/config';
import { type DestinationPolicy, destinationPolicyFromEnv } from '#shared/webhooks/destination';

export interface PushWorkerSettings {
  /** The webhook address guard: push endpoints may go where webhooks may. */
  readonly policy: DestinationPolicy;
  /** How long one push may take, connection included. */
  readonly timeoutMs: number;
  /** Attempts in all before the DLQ. */
  readonly maxAttempts: number;
  /** The delay before the second attempt; each later one doubles it. */
  readonly retryBaseSeconds: number;
  /** The VAPID `sub` claim: a contact for the push services, a real `mailto:` or `https:` URL. */
  readonly vapidSubject: string;
}

/** A VAPID contact push services accept: Apple answers 403 BadJwtToken to a made-up one such as `mailto:x@localhost`. */
export function checkVapidSubject(subject: string): string {
  let url: URL;
  try {
    url = new URL(subject);
  } catch {
    throw new Error(`PUSH_VAPID_SUBJECT must be a mailto: or https: URL, not ${subject}`);
  }
  const host = url.protocol === 'mailto:' ? url.pathname.split('@')[1] : url.hostname;
  if (
    !['mailto:', 'https:'].includes(url.protocol) ||
    !host ||
    !host.includes('.') ||
    /localhost$/i.test(host)
  ) {
    throw new Error(`PUSH_VAPID_SUBJECT must be a mailto: or https: URL with a real domain, not ${subject}`);
  }
  return subject;
}

export function pushWorkerSettings(env: NodeJS.ProcessEnv = process.env): PushWorkerSettings {
  return {
    policy: destinationPolicyFromEnv(env),
    timeoutMs: positiveIntegerEnv(env, 'PUSH_TIMEOUT_MS', 5_000),
    maxAttempts: positiveIntegerEnv(env, 'PUSH_MAX_ATTEMPTS', 5),
    retryBaseSeconds: positiveIntegerEnv(env, 'PUSH_RETRY_BASE_SECONDS', 2),
    vapidSubject: checkVapidSubject(env.PUSH_VAPID_SUBJECT ?? 'mailto:postmaster@example.com'),
  };
}
