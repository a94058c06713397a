import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { deadLetter, requeueEvent } from '#shared/events/redelivery';
import { describeEvent, parseQueuedMessage } from '#shared/events/webhook-event';
import { logger } from '#shared/log';
import { countMetric } from '#shared/metrics';
import { clearAnnouncement } from '#shared/store/announcements';
import { observability } from '#shared/observability';
import { deliverWebhook } from '#shared/use-cases/deliver-webhook';
import { retryDelaySeconds, webhookWorkerSettings } from '#shared/webhooks/settings';

const settings = webhookWorkerSettings();
const processor = new BatchProcessor(EventType.SQS);

/**
 * One message: one delivery attempt. Delivered or nowhere to deliver → done. A receiver that failed → the event
 * comes back after a growing delay, until the last attempt, then the DLQ. A webhook that cannot be built or whose
 * destination is refused → the DLQ at once, with the reason. If even that cannot be done, the record fails and SQS
 * hands it back later: nothing is lost.
 */
async function handleRecord(record: SQSRecord): Promise<void> {
  const queued = parseQueuedMessage(record.body);
  if (!queued) {
    logger.error('Webhook message is not an event', { messageId: record.messageId });
    await deadLetter(record.body, 'the message is not a webhook event this service wrote');
    countMetric('WebhooksDeadLettered');
    return;
  }
  const { event, attempt } = queued;
  // The answer's event reached the queue: the sweep has nothing to send again, whatever this attempt gives.
  if (event.kind === 'authorization-response' && attempt === 1) await clearAnnouncement(event.authRequestId);
  const started = performance.now();
  const result = await deliverWebhook(event, settings);
  const attemptLog = {
    ...describeEvent(event),
    attempt,
    ms: Math.round(performance.now() - started),
    ...result,
  };
  switch (result.outcome) {
    case 'delivered':
      logger.info('Webhook attempt', attemptLog);
      countMetric('WebhooksDelivered');
      return;
    case 'no-destination':
      logger.info('Webhook attempt', attemptLog);
      return;
    case 'dead':
      logger.error('Webhook attempt', attemptLog);
      await deadLetter(record.body, result.reason);
      countMetric('WebhooksDeadLettered');
      return;
    case 'retry': {
      countMetric('WebhookAttemptsFailed');
      if (attempt >= settings.maxAttempts) {
        logger.error('Webhook attempt', { ...attemptLog, next: 'dead-letter queue' });
        await deadLetter(record.body, `gave up after ${attempt} attempts: ${result.reason}`);
        countMetric('WebhooksDeadLettered');
        return;
      }
      const delaySeconds = retryDelaySeconds(attempt, settings.retryBaseSeconds);
      logger.warn('Webhook attempt', { ...attemptLog, next: `attempt ${attempt + 1} in ${delaySeconds} s` });
      await requeueEvent(event, attempt + 1, delaySeconds);
    }
  }
}

/** The webhook worker: fed by the webhook queue, reports partial batch failures. */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>(
  async (event: SQSEvent, context: Context) =>
    processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false }),
).use(observability());
