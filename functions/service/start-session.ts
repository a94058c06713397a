import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { noContent } from '#shared/http/reply';
import { startSessionBody } from '#shared/http/schemas/auth-requests';
import { signedHandler } from '#shared/http/signed-handler';
import { formatEntity } from '#shared/protocol/entity';
import { startSession } from '#shared/use-cases/sessions';
import { requireServiceUser, subjectService } from '#shared/use-cases/users';

/** POST /service/v3/sessions: the application tells the service its user has a session. */
export const handler = signedHandler({
  subject: 'svc',
  body: startSessionBody,
  handle: async ({ caller, body, receivedAt }) => {
    const service = subjectService(caller);
    const { user } = await requireServiceUser(service, body.username, await currentHashKey());
    await startSession(
      { directoryId: user.directoryId, identifier: user.identifier },
      {
        serviceId: service.id,
        authRequest: body.auth_request ?? null,
        requester: formatEntity(caller.issuer),
        identity: caller.identity,
      },
      receivedAt,
    );
    return noContent();
  },
});
