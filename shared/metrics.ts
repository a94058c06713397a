import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

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
  | 'PushesDeadLettered';

const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MfaAuthorization',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'mfa-authorization',
});

/** Counts one occurrence now; published at once, so a handler that fails later has still counted it. */
export function countMetric(name: ServiceMetric, value = 1): void {
  metrics.addMetric(name, MetricUnit.Count, value);
  metrics.publishStoredMetrics();
}
