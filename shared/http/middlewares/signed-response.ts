import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiKeyRing } from '#shared/api-keys/current-key-ring';
import { ApiError } from '#shared/errors';
import type { HttpEvent } from '#shared/http/event';
import type { Reply } from '#shared/http/reply';
import type { SignedContext, SignedState } from '#shared/http/signed-state';
import { logger } from '#shared/log';
import { formatEntity } from '#shared/protocol/entity';
import { encryptJson } from '#shared/protocol/jwe';
import { signResponseJwt } from '#shared/protocol/response-jwt';

type HttpResult = APIGatewayProxyStructuredResultV2;

/** A reply whose body is sent as plain JSON: 401s (PY parses them as JSON) and 5xx (no SDK decrypts them). */
interface RenderedReply extends Reply {
  readonly plain?: boolean;
}

/**
 * Step 5, and the error mapper. Attached first so that its `after` runs last and its `onError` catches every failure:
 * every response, 5xx included, leaves with the same JWT in X-API-JWT and X-IOV-JWT.
 */
export function signedResponse(): MiddlewareObj<HttpEvent, HttpResult, Error, SignedContext> {
  return {
    before: (request) => {
      request.context.signed = { receivedAt: Date.now() };
    },
    after: async (request) => {
      request.response = await render(request.response as Reply, request.context.signed);
    },
    onError: async (request) => {
      if (request.response) return;
      const state = request.context.signed ?? { receivedAt: Date.now() };
      try {
        request.response = await render(errorReply(request.error, state), state);
      } catch (error) {
        logger.error('The error response could not be signed', { error });
        request.response = {
          statusCode: 500,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error_code: 'HTTP-500', error_detail: 'Internal error' }),
        };
      }
    },
  };
}

function errorReply(error: unknown, state: SignedState): RenderedReply {
  if (error instanceof ApiError) {
    const context = { code: error.code, detail: error.detail, issuer: state.claimed?.iss };
    if (error.status >= 500) logger.error('Request failed', { ...context, error: error.cause ?? error });
    else logger.info('Request refused', context);
    return {
      status: error.status,
      body: {
        error_code: error.code,
        error_detail: error.detail,
        ...(error.data === undefined ? {} : { error_data: error.data }),
      },
      plain: error.status === 401 || error.status >= 500,
    };
  }
  logger.error('Unhandled error', { error });
  return { status: 500, body: { error_code: 'HTTP-500', error_detail: 'Internal error' }, plain: true };
}

async function render(reply: RenderedReply, state: SignedState): Promise<HttpResult> {
  const ring = await apiKeyRing();
  const headers: Record<string, string> = { ...reply.headers };
  let body = '';
  if (reply.body !== undefined) {
    if (reply.plain) {
      body = JSON.stringify(reply.body);
      headers['content-type'] = 'application/json';
    } else if (state.caller?.responseKey) {
      body = await encryptJson(reply.body, state.caller.responseKey);
      headers['content-type'] = 'application/jose';
    } else if (reply.status < 400 && state.caller) {
      throw new ApiError(
        'AUTH-007',
        `${formatEntity(state.caller.issuer)} has no active key of key_type 0 or 1 to encrypt the response to`,
      );
    }
    // An error for a caller with no encryption key goes without a body: PY and JV both still map it by status.
  }
  const claimed = state.claimed ?? { identity: 'lka' };
  const token = await signResponseJwt({
    signingKey: ring.current,
    issuer: claimed.identity,
    ...(claimed.iss === undefined ? {} : { audience: claimed.iss }),
    ...((claimed.sub ?? claimed.iss) === undefined ? {} : { subject: claimed.sub ?? claimed.iss }),
    ...(claimed.jti === undefined ? {} : { jti: claimed.jti }),
    binding: {
      status: reply.status,
      body,
      ...(headers.location === undefined ? {} : { location: headers.location }),
      ...(headers['cache-control'] === undefined ? {} : { cache: headers['cache-control'] }),
    },
    now: Math.floor(Date.now() / 1000),
  });
  headers['x-api-jwt'] = token;
  headers['x-iov-jwt'] = token;
  return { statusCode: reply.status, headers, body, isBase64Encoded: false };
}
