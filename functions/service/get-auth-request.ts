import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { signedHandler } from '#shared/http/signed-handler';
import { readAuthRequest } from '#shared/use-cases/auth-request-outcomes';

/** GET /service/v3/auths/{auth_request}: 204 pending, 200 answered, 408 expired, SVC-007 cancelled (docs/protocol.md#states). */
export const handler = signedHandler({
  subject: 'svc',
  body: 'none',
  handle: async ({ caller, pathParameters, receivedAt }) =>
    readAuthRequest(caller.subject.id, pathParameters.auth_request ?? '', receivedAt, currentHashKey),
});
