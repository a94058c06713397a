import type { ConsoleAction } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import { clip, idEchoLength } from '#shared/echo';
import { ApiError } from '#shared/errors';
import { type ConsoleEndpoint, type ConsoleTouched, endpoint } from '#shared/http/console-handler';
import { consoleAddKeyBody, consoleUpdateKeyBody } from '#shared/http/schemas/console-keys';
import { keyChangesOf, newEntityKeyOf } from '#shared/http/schemas/keys';
import type { Entity } from '#shared/protocol/entity';
import {
  consoleDirectoryOrganization,
  consoleOrganization,
  consoleService,
} from '#shared/use-cases/console-scope';
import {
  addEntityKey,
  changeEntityKey,
  deleteEntityKey,
  listEntityKeyViews,
} from '#shared/use-cases/entity-keys';
import { actingSession } from '#functions/console/required-session';

/** Whose keys a path names, once the admin may touch it: the entity, and what its audit records name. */
interface KeyOwner {
  readonly entity: Entity;
  readonly touched: ConsoleTouched;
}

/** A level of keys: its path and who may change them. */
interface KeyLevel {
  readonly path: string;
  readonly write: ConsoleAction;
  resolve(admin: ConsoleSession, id: string): Promise<KeyOwner>;
}

const levels: readonly KeyLevel[] = [
  {
    // The organization's own keys sign for every directory and service of it: its owner's and the operator's.
    path: '/organizations/{id}/keys',
    write: 'organization-key-write',
    resolve: async (admin, id) => {
      const organizationId = await consoleOrganization(admin, id);
      return { entity: { type: 'org', id: organizationId }, touched: { organizationId } };
    },
  },
  {
    path: '/directories/{id}/keys',
    write: 'key-write',
    resolve: async (admin, id) => {
      const organizationId = await consoleDirectoryOrganization(admin, id);
      return { entity: { type: 'dir', id }, touched: { organizationId, directoryId: id } };
    },
  },
  {
    path: '/services/{id}/keys',
    write: 'key-write',
    resolve: async (admin, id) => {
      const service = await consoleService(admin, id);
      return {
        entity: { type: 'svc', id: service.id },
        touched: {
          organizationId: service.organizationId,
          serviceId: service.id,
          ...(service.owner.type === 'dir' ? { directoryId: service.owner.id } : {}),
        },
      };
    },
  },
];

/** A key id from the path: the use cases answer an unknown one KEY-003; one no key could have is that too. */
function kidOf(parameters: Readonly<Record<string, string>>): string {
  const kid = parameters.kid ?? '';
  if (kid.length === 0 || kid.length > 128)
    throw new ApiError('KEY-003', `There is no key ${clip(kid, idEchoLength)}`);
  return kid;
}

function endpointsOf(level: KeyLevel): ConsoleEndpoint[] {
  const owner = (session: ConsoleSession | undefined, parameters: Readonly<Record<string, string>>) =>
    level.resolve(actingSession(session), parameters.id ?? '');
  return [
    endpoint({
      method: 'GET',
      path: level.path,
      needs: 'read',
      schema: undefined,
      handle: async ({ session, parameters }) => {
        const { entity } = await owner(session, parameters);
        return { status: 200, body: { keys: await listEntityKeyViews(entity) } };
      },
    }),
    endpoint({
      method: 'POST',
      path: level.path,
      confirmed: true,
      needs: level.write,
      schema: consoleAddKeyBody,
      handle: async ({ session, parameters, body, now }) => {
        const { entity, touched } = await owner(session, parameters);
        const key = await addEntityKey(entity, newEntityKeyOf(body), now);
        return { status: 201, body: { key_id: key.kid }, targetId: key.kid, touched };
      },
    }),
    endpoint({
      method: 'PATCH',
      path: `${level.path}/{kid}`,
      confirmed: true,
      needs: level.write,
      schema: consoleUpdateKeyBody,
      handle: async ({ session, parameters, body }) => {
        const { entity, touched } = await owner(session, parameters);
        const kid = kidOf(parameters);
        await changeEntityKey(entity, kid, keyChangesOf(body));
        const key = (await listEntityKeyViews(entity)).find((one) => one.id === kid);
        return { status: 200, body: key, targetId: kid, touched };
      },
    }),
    endpoint({
      method: 'DELETE',
      path: `${level.path}/{kid}`,
      confirmed: true,
      needs: level.write,
      schema: undefined,
      handle: async ({ session, parameters }) => {
        const { entity, touched } = await owner(session, parameters);
        const kid = kidOf(parameters);
        await deleteEntityKey(entity, kid);
        return { status: 204, targetId: kid, touched };
      },
    }),
  ];
}

/**
 * Public keys at each level in the console (docs/console.md#keys): list, add, activate or deactivate, expire, remove,
 * through the signed API's own use cases (KEY-001 for a key that is not one, KEY-003 unknown, KEY-004 the last).
 */
export const keyEndpoints: readonly ConsoleEndpoint[] = levels.flatMap(endpointsOf);
