import { clip, idEchoLength, quote } from '#shared/echo';
import { ApiError, notFound } from '#shared/errors';
import { type HttpEvent, requestPath } from '#shared/http/event';
import { publicHandler } from '#shared/http/public-handler';
import { signedHandler } from '#shared/http/signed-handler';

/**
 * Every request no route matches. Under the signed prefixes the caller gets ARG-002 in a signed, encrypted response,
 * as the SDKs expect (docs/protocol.md#error-codes); anywhere else a plain 404.
 */
const signedPrefixes = ['/organization/', '/directory/', '/service/', '/device/'];

const unknownSignedRoute = signedHandler({
  subject: 'any',
  body: 'ignored',
  handle: async () => {
    throw new ApiError('ARG-002', 'There is no such operation for this method and path');
  },
});

const unknownPublicRoute = publicHandler(async (event) => {
  throw notFound(
    `No route for ${clip(event.requestContext.http.method)} ${quote(requestPath(event), idEchoLength)}`,
  );
});

export const handler = (event: HttpEvent, context: Parameters<typeof unknownSignedRoute>[1]) =>
  signedPrefixes.some((prefix) => requestPath(event).startsWith(prefix))
    ? unknownSignedRoute(event, context)
    : unknownPublicRoute(event, context);
