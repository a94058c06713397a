import { type EntityKey, isKeyType, KeyType } from '#shared/domain/entity-key';
import { ApiError } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { keyId } from '#shared/protocol/kid';
import { InvalidKeyError, importPublicKey } from '#shared/protocol/pem';
import { putEntityKey } from '#shared/store/entity-keys';
import { isoSeconds } from '#shared/time';

export interface NewEntityKey {
  readonly publicKeyPem: string;
  readonly keyType?: number;
  readonly active?: boolean;
  /** ISO 8601 UTC, or null for no expiry. */
  readonly expires?: string | null;
}

/** Registers a public key for an organization, directory or service and returns it with its kid. */
export async function addEntityKey(
  entity: Entity,
  input: NewEntityKey,
  now = new Date(),
): Promise<EntityKey> {
  let kid: string;
  try {
    kid = keyId(importPublicKey(input.publicKeyPem));
  } catch (error) {
    if (error instanceof InvalidKeyError)
      throw new ApiError('KEY-001', `Invalid public key: ${error.message}`, { cause: error });
    throw error;
  }
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
  await putEntityKey(entity, key);
  return key;
}
