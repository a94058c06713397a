import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { EntityKey } from '#shared/domain/entity-key';
import type { Organization } from '#shared/domain/organization';
import { invalidArgument } from '#shared/errors';
import { publicKeyPem } from '#shared/protocol/pem';
import { putOrganization } from '#shared/store/organizations';
import { isoSeconds } from '#shared/time';
import { addEntityKey, checkPublicKey } from '#shared/use-cases/entity-keys';

export interface CreateOrganizationInput {
  readonly name: string;
  /** Register this public key; without one a key pair is generated and its private half returned once. */
  readonly publicKeyPem?: string;
  readonly keyBits?: number;
}

export interface CreatedOrganization {
  readonly organization: Organization;
  readonly key: EntityKey;
  /** PKCS#8 PEM of the generated key; never stored by the service. */
  readonly privateKeyPem?: string;
}

export async function createOrganization(
  input: CreateOrganizationInput,
  now = new Date(),
): Promise<CreatedOrganization> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw invalidArgument('name must be 1 to 200 characters');
  let publicKey = input.publicKeyPem;
  let privateKeyPem: string | undefined;
  if (publicKey === undefined) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: input.keyBits ?? 2048 });
    privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    publicKey = publicKeyPem(privateKey);
  }
  // The key is checked before anything is written, so a bad key leaves nothing behind.
  checkPublicKey(publicKey);
  const organization: Organization = { id: randomUUID(), name, created: isoSeconds(now) };
  await putOrganization(organization);
  const key = await addEntityKey({ type: 'org', id: organization.id }, { publicKeyPem: publicKey }, now);
  return { organization, key, ...(privateKeyPem === undefined ? {} : { privateKeyPem }) };
}
