import { json, publicHandler } from '#shared/http/public-handler';
import { pollV1 } from '#shared/use-cases/v1-poll';

/** GET /v1/poll: the legacy poll (docs/protocol.md#legacy-v1), authenticated by app key, secret and signature. */
export const handler = publicHandler(async (event) => {
  const reply = await pollV1(event.queryStringParameters ?? {}, new Date());
  return json(reply.status, reply.body);
});
