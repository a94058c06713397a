import type { RejectionReason } from '#shared/protocol/rejection';

/** The service answered with an error status; `errorCode` is the catalogue code when the body carried one. */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';

  constructor(
    readonly status: number,
    readonly errorCode: string | undefined,
    readonly errorDetail: unknown,
    readonly errorData: Readonly<Record<string, unknown>> | undefined,
  ) {
    super(
      `${status}${errorCode ? ` ${errorCode}` : ''}: ${typeof errorDetail === 'string' ? errorDetail : JSON.stringify(errorDetail)}`,
    );
  }
}

/** The response failed verification: it cannot be trusted to come from the service, or to be this request's answer. */
export class ResponseVerificationError extends Error {
  override readonly name = 'ResponseVerificationError';

  constructor(
    readonly reason: RejectionReason | 'missing-jwt' | 'api-key' | 'not-this-api',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
