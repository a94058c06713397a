import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from '#shared/log';

/** The service's own business metrics (CloudWatch, as embedded metric format log lines). */
export type ServiceMetric =
  | 'AuthRequestsCreated'
  | 'AuthRequestsAnswered'
  | 'AuthRequestsExpired'
  | 'WebhooksDelivered'
  | 'WebhookAttemptsFailed'
  | 'WebhooksDeadLettered'
  | 'PushesNotQueued'
  | 'PushesDelivered'
  | 'PushChannelsGone'
  | 'PushAttemptsFailed'
  | 'PushesDeadLettered'
  /** A gauge, not a count: the current API key's age in days, which the key-age alarm watches. */
  | 'ApiKeyAgeDays'
  | 'EventsSwept';

const emptyFlush = 'No application metrics to publish';

/**
 * The metrics of this process, flushed by the `logMetrics` middleware (shared/observability.ts) after each invocation,
 * and after a failed one too. Most requests count nothing: that flush's warning is noise, so it goes to debug.
 */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MfaAuthorization',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'mfa-authorization',
  logger: {
    debug: (message: unknown) => logger.debug(String(message)),
    info: (message: unknown) => logger.info(String(message)),
    warn: (message: unknown) =>
      String(message).startsWith(emptyFlush) ? logger.debug(String(message)) : logger.warn(String(message)),
    error: (message: unknown) => logger.error(String(message)),
  },
});

/**
 * Counts one occurrence. The invocation's `logMetrics` publishes it when the handler returns or fails, so a handler
 * that fails later has still counted it.
 */
export function countMetric(name: ServiceMetric, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
}
