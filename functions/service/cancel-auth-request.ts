import { noContent } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { cancelAuthRequest } from '#shared/use-cases/auth-request-outcomes';

/** DELETE /service/v3/auths/{auth_request}: cancel a pending request (docs/protocol.md#states). */
export const handler = signedHandler({
  subject: 'svc',
  body: 'none',
  handle: async ({ caller, pathParameters, receivedAt }) => {
    await cancelAuthRequest(caller.subject.id, pathParameters.auth_request ?? '', receivedAt);
    return noContent();
  },
});
