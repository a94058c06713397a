import type { UserKey } from '#shared/domain/user';
import { notFound } from '#shared/errors';
import { publishEvent } from '#shared/events/publish';
import { getUser, removeUserSession } from '#shared/store/users';
import { isoSeconds } from '#shared/time';

/** The user ended a session on a device: the session goes, and the service hears of it (Session Ended webhook). */
export async function endSessionFromDevice(
  key: UserKey,
  userId: string,
  serviceId: string,
  now: Date,
): Promise<void> {
  const user = await getUser(key);
  const session = user?.sessions.find((candidate) => candidate.serviceId === serviceId);
  if (!session) throw notFound('There is no session with this service');
  await removeUserSession(key, serviceId);
  await publishEvent({
    kind: 'session-ended',
    serviceId,
    userId,
    audience: session.requester,
    identity: session.identity,
    endedAt: isoSeconds(now),
  });
}
