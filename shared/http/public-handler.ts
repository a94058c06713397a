import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ApiError } from '#shared/errors';
import type { HttpEvent } from '#shared/http/event';
import { edgeOrigin } from '#shared/http/middlewares/edge-origin';
import { logger } from '#shared/log';
import { observability } from '#shared/observability';

type HttpResult = APIGatewayProxyStructuredResultV2;

/** An unsigned answer: the public endpoints send plain JSON or text. */
export interface PublicReply {
  readonly status: number;
  readonly body: string;
  /** The body is base64 of binary content (an image). */
  readonly base64?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
}

export const json = (status: number, value: unknown): PublicReply => ({
  status,
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json' },
});

/** The pipeline of the unsigned endpoints: the use case, and errors as plain JSON. */
export function publicHandler(handle: (event: HttpEvent) => Promise<PublicReply>) {
  return middy<HttpEvent, HttpResult, Error, Context>(async (event: HttpEvent) => {
    const reply = await handle(event);
    return {
      statusCode: reply.status,
      headers: { ...reply.headers },
      body: reply.body,
      isBase64Encoded: reply.base64 === true,
    };
  })
    .use(edgeOrigin())
    .use(observability())
    .use({
      onError: (request) => {
        if (request.response) return;
        const error = request.error;
        const reply =
          error instanceof ApiError
            ? refusal(error)
            : json(500, { error_code: 'HTTP-500', error_detail: 'Internal error' });
        if (!(error instanceof ApiError) || error.status >= 500) logger.error('Request failed', { error });
        request.response = { statusCode: reply.status, headers: { ...reply.headers }, body: reply.body };
      },
    });
}

/** A refusal's body, and for a 429 the seconds to wait in `Retry-After` too: nothing signs these answers' headers. */
function refusal(error: ApiError): PublicReply {
  const reply = json(error.status, {
    error_code: error.code,
    error_detail: error.detail,
    ...(error.data ? { error_data: error.data } : {}),
  });
  const retryAfter = error.data?.retry_after;
  return error.status === 429 && typeof retryAfter === 'number'
    ? { ...reply, headers: { ...reply.headers, 'retry-after': String(retryAfter) } }
    : reply;
}
