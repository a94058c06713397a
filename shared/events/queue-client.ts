import { SQSClient } from '@aws-sdk/client-sqs';

/** One client per process: short timeouts, so a request that cannot enqueue fails fast and is retried by its caller. */
export const queueClient = new SQSClient({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
});
