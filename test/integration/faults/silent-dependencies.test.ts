import { createServer, type Server } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A store and a queue that accept connections and never answer, as a stalled endpoint or a black-holed route does:
 * the real clients with their real HTTP handler, no injected errors. Each attempt must be cut off, retried, and the
 * request failed, instead of waiting for the function's timeout.
 */
let silent: Server;
/** The HTTP requests the silent endpoint received, by the service they named. */
const received = { dynamodb: 0, sqs: 0 };

beforeAll(async () => {
  silent = createServer((socket) => {
    socket.on('data', (data: Buffer) => {
      const text = data.toString('latin1');
      if (!text.startsWith('POST ')) return;
      if (/x-amz-target: DynamoDB_/i.test(text)) received.dynamodb++;
      else received.sqs++;
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  Object.assign(process.env, {
    TABLE_NAME: 'silent',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDSILENTENDPOINT',
    AWS_SECRET_ACCESS_KEY: 'silent-endpoint-secret',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}`,
    AWS_ENDPOINT_URL_SQS: `http://127.0.0.1:${port}`,
  });
});
afterAll(async () => {
  await new Promise((resolve) => silent.close(resolve));
});

describe.concurrent('an endpoint that never answers', () => {
  it('makes a store read a 503 after three attempts', async () => {
    const { dynamo } = await import('#shared/store/dynamo');
    const failure = await dynamo
      .send(new GetCommand({ TableName: 'silent', Key: { pk: 'USER#alice', sk: 'USER' } }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toMatchObject({
      status: 503,
      code: 'HTTP-503',
      detail: 'The store is unavailable; retry the request',
      cause: { name: 'TimeoutError' },
    });
    expect(received.dynamodb).toBe(3);
  });

  it('fails a queue send after three attempts', async () => {
    const { queueClient } = await import('#shared/events/queue-client');
    const queueUrl = `${process.env.AWS_ENDPOINT_URL_SQS}/000000000000/silent`;
    const failure = await queueClient
      .send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 3 } });
    expect(received.sqs).toBe(3);
  });
});
