import { Readable } from 'node:stream';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors';

process.env.TABLE_NAME ??= 'unit';
Object.assign(process.env, {
  AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
  AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'unit',
  AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'unit',
});

let store: typeof import('#shared/store/dynamo');

beforeAll(async () => {
  store = await import('#shared/store/dynamo');
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface SentRequest {
  readonly headers: Record<string, string>;
}

/** Answers the store client's HTTP requests in turn, below retries and signing, and keeps what was sent. */
function answering(...answers: { status: number; body: object }[]) {
  const sent: SentRequest[] = [];
  const handler = (store.dynamo.config as unknown as { requestHandler: { handle: unknown } }).requestHandler;
  vi.spyOn(handler as { handle: (request: SentRequest) => Promise<unknown> }, 'handle').mockImplementation(
    async (request) => {
      sent.push({ headers: { ...request.headers } });
      const answer = answers.shift() ?? { status: 500, body: {} };
      return {
        response: {
          statusCode: answer.status,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from(JSON.stringify(answer.body))]),
        },
      };
    },
  );
  return sent;
}

const throttled = {
  status: 400,
  body: {
    __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded.',
  },
};
const get = () => new GetCommand({ TableName: store.tableName, Key: { pk: 'USER#1', sk: 'HEAD' } });

describe('the store client', () => {
  it('retries a throttled read and answers with the item, every attempt signed', async () => {
    const sent = answering(throttled, throttled, {
      status: 200,
      body: { Item: { pk: { S: 'USER#1' }, sk: { S: 'HEAD' }, name: { S: 'alice' } } },
    });

    const { Item } = await store.dynamo.send(get());

    expect(Item).toEqual({ pk: 'USER#1', sk: 'HEAD', name: 'alice' });
    expect(sent).toHaveLength(3);
    for (const request of sent) {
      expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=/);
    }
  });

  it('answers 503 when the store is still throttling after its retries', async () => {
    const sent = answering(throttled, throttled, throttled);

    const error = await store.dynamo.send(get()).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'HTTP-503' });
    expect(sent).toHaveLength(3);
  });
});
