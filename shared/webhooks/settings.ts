import { positiveIntegerEnv } from '#shared/config';
import { type DestinationPolicy, destinationPolicyFromEnv } from '#shared/webhooks/destination';

export interface WebhookWorkerSettings {
  readonly policy: DestinationPolicy;
  /** How long one POST may take, connection included. */
  readonly timeoutMs: number;
  /** Attempts in all before the DLQ. */
  readonly maxAttempts: number;
  /** The delay before the second attempt; each later one doubles it. */
  readonly retryBaseSeconds: number;
}

/** SQS delays a message at most 15 minutes. */
export const maxRetryDelaySeconds = 900;

export function webhookWorkerSettings(env: NodeJS.ProcessEnv = process.env): WebhookWorkerSettings {
  return {
    policy: destinationPolicyFromEnv(env),
    timeoutMs: positiveIntegerEnv(env, 'WEBHOOK_TIMEOUT_MS', 5_000),
    maxAttempts: positiveIntegerEnv(env, 'WEBHOOK_MAX_ATTEMPTS', 8),
    retryBaseSeconds: positiveIntegerEnv(env, 'WEBHOOK_RETRY_BASE_SECONDS', 30),
  };
}

/**
 * The delay after failed attempt `attempt` (1-based): the base doubled per earlier failure, capped at SQS's 15
 * minutes, and stretched by up to a quarter at random so that retries to a receiver that was down do not arrive
 * together when it comes back.
 */
export function retryDelaySeconds(attempt: number, baseSeconds: number, random = Math.random): number {
  const exponential = baseSeconds * 2 ** (attempt - 1);
  return Math.min(maxRetryDelaySeconds, Math.round(exponential * (1 + random() / 4)));
}
