import { publicHandler, json } from '#shared/http/public-handler';
import { formatLaunchKeyTime } from '#shared/protocol/legacy-credentials';
import { currentApiPublicKey } from '#shared/use-cases/api-public-keys';
import { serviceUnavailable } from '#shared/errors';

/**
 * GET /v1/ping: what every v1 client fetches before it polls, the API key to encrypt its secret to and the time to
 * stamp it with (`launchkey_time`, `%Y-%m-%d %H:%M:%S` UTC).
 */
export const handler = publicHandler(async () => {
  const key = await currentApiPublicKey();
  if (!key) throw serviceUnavailable('The API has no key yet');
  const now = formatLaunchKeyTime(new Date());
  return json(200, { key: key.publicKeyPem, launchkey_time: now, date_stamp: now });
});
