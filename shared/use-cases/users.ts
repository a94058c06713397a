import type { DirectoryRecord } from '#shared/domain/directory';
import type { Service } from '#shared/domain/service';
import type { User } from '#shared/domain/user';
import { openUserPushId } from '#shared/domain/user-identity';
import { forbidden, invalidArgument, notFound } from '#shared/errors';
import type { Caller } from '#shared/http/signed-state';
import type { RequestGuards } from '#shared/store/push-fatigue';
import { serviceFromHead } from '#shared/store/service-heads';
import { findUserDirectories, getDirectoryAndUser, getUserKey } from '#shared/store/users';

export interface ResolvedUser {
  readonly user: User;
  readonly directory: DirectoryRecord;
  /** The directory's settings and the user's lock, when asked for: read with the user. */
  readonly guards?: RequestGuards;
}

/**
 * The user a service means by `username`: for a Directory Service its directory's user with that identifier; for an
 * Organization Service the one user with that identifier across the organization's directories (two is ambiguous);
 * failing that, the user a push id of this service names. Undefined when there is none.
 */
export async function findServiceUser(
  service: Service,
  username: string,
  hashKey: Buffer,
  withRequestGuards = false,
): Promise<ResolvedUser | undefined> {
  const directoryIds =
    service.owner.type === 'dir'
      ? [service.owner.id]
      : await findUserDirectories(service.organizationId, username);
  if (directoryIds.length > 1) {
    throw invalidArgument(
      'username: this identifier exists in more than one directory of the organization; use the user_push_id instead',
    );
  }
  const [directoryId] = directoryIds;
  if (directoryId !== undefined) {
    const key = { directoryId, identifier: username };
    const found = await getDirectoryAndUser(service.organizationId, key, withRequestGuards);
    if (found.user && found.directory) return { ...found, user: found.user, directory: found.directory };
  }
  const pushed = openUserPushId(hashKey, username);
  if (!pushed || pushed.serviceId !== service.id) return undefined;
  const key = await getUserKey(pushed.userId);
  if (!key || (service.owner.type === 'dir' && key.directoryId !== service.owner.id)) return undefined;
  const found = await getDirectoryAndUser(service.organizationId, key, withRequestGuards);
  return found.user && found.directory
    ? { ...found, user: found.user, directory: found.directory }
    : undefined;
}

/** As findServiceUser, or 404; a null username names nobody and is 404 too. */
export async function requireServiceUser(
  service: Service,
  username: string | null,
  hashKey: Buffer,
  withRequestGuards = false,
): Promise<ResolvedUser> {
  const resolved =
    username === null ? undefined : await findServiceUser(service, username, hashKey, withRequestGuards);
  if (!resolved) throw notFound('There is no such user');
  return resolved;
}

/** The service a signed request acts for, from the head the pipeline loaded. */
export function subjectService(caller: Caller): Service {
  if (caller.subject.type !== 'svc' || !caller.subjectHead)
    throw forbidden('This operation acts on a service');
  return serviceFromHead(caller.subjectHead);
}
