import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context as LambdaContext } from 'aws-lambda';
import { type HttpEvent, header } from '#shared/http/event';

/** The header CloudFront adds to every request it forwards to the API, holding the origin secret. */
export const originVerifyHeader = 'x-origin-verify';

/**
 * The environment variable holding the values of the origin secret the functions accept (space-separated: the one
 * CloudFront sends, and the next one during a rotation). Set only in AWS, and only when CloudFront is in front; the
 * local runtime leaves it unset, and then every request is accepted.
 */
export const originSecretsVariable = 'ORIGIN_VERIFY_SECRETS';

let accepted: { readonly source: string; readonly digests: readonly Buffer[] } | undefined;

/**
 * SHA-256 of each accepted value, made once per value of the variable: comparing digests of equal length lets the
 * comparison take the same time whatever the header holds.
 */
function acceptedDigests(): readonly Buffer[] | undefined {
  const source = process.env[originSecretsVariable]?.trim();
  if (!source) return undefined;
  if (accepted?.source !== source) {
    accepted = { source, digests: source.split(/\s+/).map(digest) };
  }
  return accepted.digests;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether the request came through the edge: true when no origin secret is configured (nothing is in front), or
 * when the request carries one of the accepted values. Every accepted value is compared, in constant time.
 */
export function cameThroughEdge(event: HttpEvent): boolean {
  const digests = acceptedDigests();
  if (!digests) return true;
  const presented = header(event, originVerifyHeader);
  if (presented === undefined) return false;
  const candidate = digest(presented);
  let matched = false;
  for (const expected of digests) matched = timingSafeEqual(candidate, expected) || matched;
  return matched;
}

/** Whether the functions sit behind the edge, so that the viewer's address comes from CloudFront's header. */
export function edgeConfigured(): boolean {
  return acceptedDigests() !== undefined;
}

const forbidden: APIGatewayProxyStructuredResultV2 = {
  statusCode: 403,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error_code: 'HTTP-403', error_detail: 'Requests must come through the edge' }),
};

/**
 * The first step of every HTTP pipeline: a request that went around CloudFront (and so around its WAF) to the API's
 * own endpoint is refused with 403 before any key, store or signature is touched. No SDK ever gets this answer:
 * CloudFront adds the header to everything it forwards.
 */
export function edgeOrigin<Context extends LambdaContext>(): MiddlewareObj<
  HttpEvent,
  APIGatewayProxyStructuredResultV2,
  Error,
  Context
> {
  return {
    before: (request) => {
      if (cameThroughEdge(request.event)) return;
      // An early return: middy skips every later step, the response signer's included.
      return { ...forbidden, headers: { ...forbidden.headers } };
    },
  };
}
