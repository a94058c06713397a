import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda context as the runtime would pass it, with a deadline so middy's timeout handling behaves as deployed. */
export function lambdaContext(
  functionName: string,
  timeoutMs: number,
  requestId: string = randomUUID(),
): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
