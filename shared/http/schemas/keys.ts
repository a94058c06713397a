import { createPublicKey } from 'node:crypto';
import * as v from 'valibot';
import type { KeyType } from '#shared/domain/entity-key';
import type { NewEntityKey } from '#shared/use-cases/entity-keys';
import { flag, isoDate, optionalNullable, uuid } from '#shared/http/schemas/common';

const maxPemLength = 16_384;
/** OpenSSL neither encrypts to nor verifies with a larger RSA modulus. */
const maxModulusBits = 16_384;

/** The modulus of a PEM public key; 0 for text that is no RSA key, which the use case refuses with its reason. */
function modulusBits(pem: string): number {
  try {
    return createPublicKey({ key: pem, format: 'pem' }).asymmetricKeyDetails?.modulusLength ?? 0;
  } catch {
    return 0;
  }
}

/**
 * A PEM public key: an entity's, or a device's. A key with a modulus OpenSSL cannot use is refused here, or every
 * answer encrypted to it would fail; whatever else is wrong with a key is the use case's to name (KEY-001).
 */
export const publicKey = v.pipe(
  v.string(),
  v.maxLength(maxPemLength, 'is too long for a PEM public key'),
  // valibot runs every check of a pipe: text already refused as too long is not parsed.
  v.check(
    (pem) => pem.length > maxPemLength || modulusBits(pem) <= maxModulusBits,
    `must be an RSA key of at most ${maxModulusBits} bits`,
  ),
);
const keyType = v.picklist([0, 1, 2], 'must be 0 (both), 1 (encryption) or 2 (signature)');
const kid = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(128, 'is too long'));

/** The key bodies with the owning entity's id under one name, whatever the wire calls it. */
export interface AddKeyInput {
  readonly id: string;
  readonly public_key: string;
  readonly date_expires?: string | null;
  readonly active?: boolean | null;
  readonly key_type?: KeyType | null;
}
export interface KeyOwnerInput {
  readonly id: string;
}
export interface UpdateKeyInput {
  readonly id: string;
  readonly key_id: string;
  readonly active?: boolean | null;
  readonly date_expires?: string | null;
}
export interface RemoveKeyInput {
  readonly id: string;
  readonly key_id: string;
}

/** A key body as the use case takes it; the signed API and the console add and change keys alike. */
export const newEntityKeyOf = (body: {
  readonly public_key: string;
  readonly key_type?: number | null;
  readonly active?: boolean | null;
  readonly date_expires?: string | null;
}): NewEntityKey => ({
  publicKeyPem: body.public_key,
  keyType: body.key_type ?? 0,
  active: body.active ?? true,
  expires: body.date_expires ?? null,
});

/** A change body as the use case takes it: what is left out (or null for `active`) stays as it is. */
export const keyChangesOf = (body: {
  readonly active?: boolean | null;
  readonly date_expires?: string | null;
}): { readonly active?: boolean; readonly expires?: string | null } => ({
  ...(body.active == null ? {} : { active: body.active }),
  ...(body.date_expires === undefined ? {} : { expires: body.date_expires }),
});

export interface KeyBodies {
  readonly add: v.GenericSchema<unknown, AddKeyInput>;
  readonly list: v.GenericSchema<unknown, KeyOwnerInput>;
  readonly update: v.GenericSchema<unknown, UpdateKeyInput>;
  readonly remove: v.GenericSchema<unknown, RemoveKeyInput>;
}

/**
 * A key body whose owner id arrives as `directory_id` or `service_id` and leaves as `id`. The output type is asserted:
 * valibot cannot infer through a computed key, and the entries given here are exactly those of `T`.
 */
function keyBody<T>(
  idField: 'directory_id' | 'service_id',
  entries: v.ObjectEntries,
): v.GenericSchema<unknown, T> {
  return v.pipe(
    v.strictObject({ [idField]: uuid, ...entries }),
    v.transform(({ [idField]: id, ...rest }) => ({ ...rest, id })),
  ) as unknown as v.GenericSchema<unknown, T>;
}

/** Key bodies for a directory (`directory_id`) or a service (`service_id`). */
export function keyBodies(idField: 'directory_id' | 'service_id'): KeyBodies {
  return {
    add: keyBody<AddKeyInput>(idField, {
      public_key: publicKey,
      date_expires: optionalNullable(isoDate),
      active: optionalNullable(flag),
      key_type: optionalNullable(keyType),
    }),
    list: keyBody<KeyOwnerInput>(idField, {}),
    update: keyBody<UpdateKeyInput>(idField, {
      key_id: kid,
      active: optionalNullable(flag),
      date_expires: optionalNullable(isoDate),
    }),
    remove: keyBody<RemoveKeyInput>(idField, { key_id: kid }),
  };
}
