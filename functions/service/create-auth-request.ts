import { created } from '#shared/http/reply';
import { createAuthRequestBody } from '#shared/http/schemas/auth-requests';
import { signedHandler } from '#shared/http/signed-handler';
import { countMetric } from '#shared/metrics';
import { createAuthRequest } from '#shared/use-cases/create-auth-request';

/** POST /service/v3/auths: ask a user to approve or deny (docs/protocol.md#creating-a-request). */
export const handler = signedHandler({
  subject: 'svc',
  body: createAuthRequestBody,
  handle: async ({ caller, body, receivedAt }) => {
    const request = await createAuthRequest(
      caller,
      {
        username: body.username,
        context: body.context,
        title: body.title,
        ttl: body.ttl,
        pushTitle: body.push_title,
        pushBody: body.push_body,
        denialReasons: body.denial_reasons,
        policy: body.policy,
        numberMatching: body.number_matching,
      },
      receivedAt,
    );
    countMetric('AuthRequestsCreated');
    return created(request);
  },
});
