import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describePushEvent, parseQueuedPush, queuedPushBody } from '#shared/events/push-event';
import { deadLetterPush, requeuePush } from '#shared/events/push-redelivery';
import { logger } from '#shared/log';
import { countMetric } from '#shared/metrics';
import { observability } from '#shared/observability';
import { pushWorkerSettings } from '#shared/push/settings';
import { deliverPush } from '#shared/use-cases/deliver-push';
import { maxRetryDelaySeconds, retryDelaySeconds } from '#shared/webhooks/settings';

const settings = pushWorkerSettings();
const processor = new BatchProcessor(EventType.SQS);

/**
 * One message: one attempt per device. Delivered → recorded. Gone → the channel is removed. A push service that
 * failed (timeout, 5xx, 429) → that device alone comes back after a growing delay with jitter, or the push service's
 * Retry-After if longer, until the last attempt, then the DLQ. Any other refusal → the DLQ at once, with the reason.
 * If even that cannot be done, the record fails and SQS hands it back later.
 */
async function handleRecord(record: SQSRecord): Promise<void> {
  const queued = parseQueuedPush(record.body);
  if (!queued) {
    logger.error('Push message is not an event', { messageId: record.messageId });
    await deadLetterPush(record.body, 'the message is not a push event this service wrote');
    countMetric('PushesDeadLettered');
    return;
  }
  const { event, attempt } = queued;
  const started = performance.now();
  const delivery = await deliverPush(event, settings);
  const base = { ...describePushEvent(event), attempt, ms: Math.round(performance.now() - started) };
  switch (delivery.outcome) {
    case 'nothing':
      logger.info('Push attempt', { ...base, outcome: 'nothing', why: delivery.why });
      return;
    case 'early':
      logger.info('Push attempt', { ...base, outcome: 'early', next: `in ${delivery.seconds} s` });
      await requeuePush(event, attempt, Math.min(maxRetryDelaySeconds, delivery.seconds));
      return;
    case 'attempted':
      break;
  }
  for (const deviceAttempt of delivery.attempts) {
    const attemptLog = { ...base, ...deviceAttempt };
    const forDevice = { ...event, deviceId: deviceAttempt.deviceId };
    switch (deviceAttempt.outcome) {
      case 'delivered':
        logger.info('Push attempt', attemptLog);
        countMetric('PushesDelivered');
        break;
      case 'gone':
        logger.info('Push attempt', { ...attemptLog, next: 'channel removed' });
        countMetric('PushChannelsGone');
        break;
      case 'failed':
        logger.error('Push attempt', { ...attemptLog, next: 'dead-letter queue' });
        await deadLetterPush(queuedPushBody(forDevice, attempt), deviceAttempt.reason);
        countMetric('PushesDeadLettered');
        break;
      case 'retry-after': {
        countMetric('PushAttemptsFailed');
        if (attempt >= settings.maxAttempts) {
          logger.error('Push attempt', { ...attemptLog, next: 'dead-letter queue' });
          await deadLetterPush(
            queuedPushBody(forDevice, attempt),
            `gave up after ${attempt} attempts: ${deviceAttempt.reason}`,
          );
          countMetric('PushesDeadLettered');
          break;
        }
        const delaySeconds = Math.min(
          maxRetryDelaySeconds,
          Math.max(retryDelaySeconds(attempt, settings.retryBaseSeconds), deviceAttempt.seconds ?? 0),
        );
        logger.warn('Push attempt', { ...attemptLog, next: `attempt ${attempt + 1} in ${delaySeconds} s` });
        await requeuePush(forDevice, attempt + 1, delaySeconds);
      }
    }
  }
}

/** The push worker: fed by the push queue, reports partial batch failures. */
export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>(
  async (event: SQSEvent, context: Context) =>
    processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false }),
).use(observability());
