import { idEchoLength, quote } from '#shared/echo';
import { notFound, serviceUnavailable } from '#shared/errors';
import { publicHandler } from '#shared/http/public-handler';
import { apiPublicKey, currentApiPublicKey } from '#shared/use-cases/api-public-keys';

/**
 * GET /public/v3/public-key[/{kid}]: the API's current public key, or an older one by kid, as raw SPKI PEM with its
 * kid in both dialects' headers (docs/protocol.md#public-endpoints).
 */
export const handler = publicHandler(async (event) => {
  const kid = event.pathParameters?.kid;
  const key = kid === undefined ? await currentApiPublicKey() : await apiPublicKey(kid);
  if (!key) {
    if (kid === undefined)
      throw serviceUnavailable('The API has no key yet; an operator must run `admin api-key rotate`');
    throw notFound(`The API has no key ${quote(kid, idEchoLength)}`);
  }
  return {
    status: 200,
    body: key.publicKeyPem,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'x-api-key-id': key.kid,
      'x-iov-key-id': key.kid,
    },
  };
});
