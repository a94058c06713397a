import { maxSessionsPerUser } from '#shared/domain/limits';
import type { UserKey, UserSession } from '#shared/domain/user';
import { invalidArgument, notFound } from '#shared/errors';
import type { ApiIdentity } from '#shared/protocol/dialect';
import { getServiceHeads } from '#shared/store/service-heads';
import { getUser, putUserSession, removeAllUserSessions, removeUserSession } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { genericIconUrl } from '#shared/use-cases/services';

/** A session as `POST /directory/v3/sessions/list` shows it (docs/protocol.md#objects). */
export interface SessionView {
  readonly service_id: string;
  readonly service_name: string;
  readonly service_icon: string;
  readonly auth_request: string | null;
  readonly date_created: string;
}

/**
 * Starts (or restarts) a user's session with a service; any auth_request id is accepted, or none. A new session of a
 * user who has sessions with `maxSessionsPerUser` services already is ARG-001.
 */
export async function startSession(
  key: UserKey,
  session: { serviceId: string; authRequest: string | null; requester: string; identity: ApiIdentity },
  now: Date,
): Promise<void> {
  const stored: UserSession = { ...session, created: isoSeconds(now) };
  const outcome = await putUserSession(key, stored);
  if (outcome === 'missing') throw notFound('There is no such user');
  if (outcome === 'full') {
    throw invalidArgument(
      `The user already has sessions with ${maxSessionsPerUser} services; end one before starting another`,
    );
  }
}

/** Ends a user's session with a service; ending one that does not exist is not an error. */
export async function endSession(key: UserKey, serviceId: string): Promise<boolean> {
  return removeUserSession(key, serviceId);
}

/** The user's sessions with the services' current names and icons; an unknown user is 404. */
export async function listSessions(key: UserKey, baseUrl: string): Promise<SessionView[]> {
  const user = await getUser(key);
  if (!user) throw notFound('There is no such user');
  const services = await getServiceHeads(user.sessions.map((session) => session.serviceId));
  return user.sessions.flatMap((session) => {
    const service = services.get(session.serviceId);
    if (!service) return [];
    return [
      {
        service_id: session.serviceId,
        service_name: service.name,
        service_icon: service.icon ?? genericIconUrl(baseUrl),
        auth_request: session.authRequest,
        date_created: session.created,
      },
    ];
  });
}

/** DELETE /directory/v3/sessions: ends every session of the user; an unknown user is 404. */
export async function endAllSessions(key: UserKey): Promise<void> {
  if (!(await removeAllUserSessions(key))) throw notFound('There is no such user');
}
