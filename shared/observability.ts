import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type middy from '@middy/core';
import { logger } from '#shared/log';
import { metrics } from '#shared/metrics';
import { tracing } from '#shared/tracing';

/** The API Gateway request id of an HTTP event; queue and deploy events have none. */
function apiRequestId(event: unknown): string | undefined {
  const requestId = (event as { requestContext?: { requestId?: unknown } } | null)?.requestContext?.requestId;
  return typeof requestId === 'string' && requestId !== '' ? requestId : undefined;
}

/**
 * What every handler's pipeline carries first, so that its `after` and `onError` run last: the Lambda context and
 * the API Gateway request id (`correlation_id`, the id of the access log line and of the `apigw-requestid` header
 * clients get) in every log line, an X-Ray segment around the handler, and the invocation's metrics, cold start
 * included, published when it returns or fails.
 */
export function observability(): middy.MiddlewareObj[] {
  return [
    injectLambdaContext(logger, { resetKeys: true }),
    {
      before: (request) => {
        const requestId = apiRequestId(request.event);
        if (requestId) logger.setCorrelationId(requestId);
      },
    },
    tracing(),
    logMetrics(metrics, { captureColdStartMetric: true }),
  ];
}
