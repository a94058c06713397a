import type { Entity, EntityType } from '#shared/protocol/entity';
import type { Caller } from '#shared/http/signed-state';
import { created, noContent, ok } from '#shared/http/reply';
import { type KeyBodies, keyBodies, keyChangesOf, newEntityKeyOf } from '#shared/http/schemas/keys';
import { signedHandler } from '#shared/http/signed-handler';
import { requireDirectory } from '#shared/use-cases/directories';
import {
  addEntityKey,
  changeEntityKey,
  deleteEntityKey,
  listEntityKeyViews,
} from '#shared/use-cases/entity-keys';
import { requireService } from '#shared/use-cases/services';

/** Whose keys an endpoint manages: the subject it runs as, the bodies naming the entity, and the ownership check. */
export interface KeyTarget {
  readonly subject: EntityType;
  readonly bodies: KeyBodies;
  /** The entity the id names, once the caller is known to own it (403 otherwise). */
  readonly resolve: (caller: Caller, id: string) => Promise<Entity>;
}

/** An organization's directories' keys: `/organization/v3/directory/keys`. */
export const directoryKeys: KeyTarget = {
  subject: 'org',
  bodies: keyBodies('directory_id'),
  resolve: async (caller, id) => {
    await requireDirectory(caller.subject.id, id);
    return { type: 'dir', id };
  },
};

/** A subject's services' keys: `/organization/v3/service/keys` and `/directory/v3/service/keys`. */
export const serviceKeys = (subject: 'org' | 'dir'): KeyTarget => ({
  subject,
  bodies: keyBodies('service_id'),
  resolve: async (caller, id) => {
    await requireService(caller.subject, id);
    return { type: 'svc', id };
  },
});

export const addKeyEndpoint = (target: KeyTarget) =>
  signedHandler({
    subject: target.subject,
    body: target.bodies.add,
    handle: async ({ caller, body, receivedAt }) => {
      const entity = await target.resolve(caller, body.id);
      const key = await addEntityKey(entity, newEntityKeyOf(body), receivedAt);
      return created({ key_id: key.kid });
    },
  });

export const listKeysEndpoint = (target: KeyTarget) =>
  signedHandler({
    subject: target.subject,
    body: target.bodies.list,
    handle: async ({ caller, body }) => ok(await listEntityKeyViews(await target.resolve(caller, body.id))),
  });

export const updateKeyEndpoint = (target: KeyTarget) =>
  signedHandler({
    subject: target.subject,
    body: target.bodies.update,
    handle: async ({ caller, body }) => {
      const entity = await target.resolve(caller, body.id);
      await changeEntityKey(entity, body.key_id, keyChangesOf(body));
      return noContent();
    },
  });

export const removeKeyEndpoint = (target: KeyTarget) =>
  signedHandler({
    subject: target.subject,
    body: target.bodies.remove,
    handle: async ({ caller, body }) => {
      await deleteEntityKey(await target.resolve(caller, body.id), body.key_id);
      return noContent();
    },
  });
