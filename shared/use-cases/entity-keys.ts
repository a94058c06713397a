import { type EntityKey, isKeyType, KeyType } from '#shared/domain/entity-key';
import { maxKeysPerEntity } from '#shared/domain/limits';
import { clip, idEchoLength } from '#shared/echo';
import { ApiError, invalidArgument } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { keyId } from '#shared/protocol/kid';
import { InvalidKeyError, importPublicKey } from '#shared/protocol/pem';
import { listEntityKeys, putEntityKey, removeEntityKey, updateEntityKey } from '#shared/store/entity-keys';
import { isoSeconds } from '#shared/time';

export interface NewEntityKey {
  readonly publicKeyPem: string;
  readonly keyType?: number;
  readonly active?: boolean;
  /** ISO 8601 UTC, or null for no expiry. */
  readonly expires?: string | null;
}

/** Validates a PEM public key and returns its kid; an invalid one is KEY-001 with the reason. */
export function checkPublicKey(publicKeyPem: string): string {
  try {
    return keyId(importPublicKey(publicKeyPem));
  } catch (error) {
    if (error instanceof InvalidKeyError) {
      throw new ApiError('KEY-001', `Invalid public key: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/**
 * Registers a public key for an organization, directory or service and returns it with its kid. An entity that has
 * `maxKeysPerEntity` keys already is ARG-001.
 */
export async function addEntityKey(
  entity: Entity,
  input: NewEntityKey,
  now = new Date(),
): Promise<EntityKey> {
  const kid = checkPublicKey(input.publicKeyPem);
  const keyType = input.keyType ?? KeyType.both;
  if (!isKeyType(keyType))
    throw new ApiError('ARG-001', 'key_type must be 0 (both), 1 (encryption) or 2 (signature)');
  const key: EntityKey = {
    kid,
    publicKeyPem: input.publicKeyPem,
    keyType,
    active: input.active ?? true,
    created: isoSeconds(now),
    expires: input.expires ?? null,
  };
  if ((await putEntityKey(entity, key)) === 'full') {
    throw invalidArgument(
      `The ${entityNouns[entity.type]} already has ${maxKeysPerEntity} keys; remove one before adding another`,
    );
  }
  return key;
}

const entityNouns: Readonly<Record<Entity['type'], string>> = {
  org: 'organization',
  dir: 'directory',
  svc: 'service',
  dev: 'device',
};

/** A public key as the key-list endpoints show it (docs/protocol.md#objects); `key_type` is always there for JV. */
export interface EntityKeyView {
  readonly id: string;
  readonly public_key: string;
  readonly date_created: string;
  readonly date_expires: string | null;
  readonly active: boolean;
  readonly key_type: KeyType;
}

export async function listEntityKeyViews(entity: Entity): Promise<EntityKeyView[]> {
  const keys = await listEntityKeys(entity);
  return keys
    .sort((a, b) => a.created.localeCompare(b.created) || a.kid.localeCompare(b.kid))
    .map((key) => ({
      id: key.kid,
      public_key: key.publicKeyPem,
      date_created: key.created,
      date_expires: key.expires,
      active: key.active,
      key_type: key.keyType,
    }));
}

/** Changes a key's `active` and `date_expires`; an unknown key is KEY-003. Takes effect on the next request. */
export async function changeEntityKey(
  entity: Entity,
  kid: string,
  changes: { readonly active?: boolean; readonly expires?: string | null },
): Promise<void> {
  if (!(await updateEntityKey(entity, kid, changes)))
    throw new ApiError('KEY-003', `There is no key ${clip(kid, idEchoLength)}`);
}

/** Removes a key; an unknown one is KEY-003, the last one KEY-004. */
export async function deleteEntityKey(entity: Entity, kid: string): Promise<void> {
  const outcome = await removeEntityKey(entity, kid);
  if (outcome === 'unknown') throw new ApiError('KEY-003', `There is no key ${clip(kid, idEchoLength)}`);
  if (outcome === 'last') {
    throw new ApiError(
      'KEY-004',
      'The last key cannot be removed; add another first, or deactivate this one',
    );
  }
}
