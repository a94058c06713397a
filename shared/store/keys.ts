import type { Entity, EntityType } from '#shared/protocol/entity';

/**
 * Every item key of the single table, in one place. Partitions are named after what they hold; handlers and use cases
 * never build key strings.
 */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const partitionPrefix: Readonly<Record<EntityType, string>> = { org: 'ORG#', dir: 'DIR#', svc: 'SVC#' };

export function entityPartition(entity: Entity): string {
  return `${partitionPrefix[entity.type]}${entity.id}`;
}

export const organizationKey = (organizationId: string): ItemKey => ({
  pk: `ORG#${organizationId}`,
  sk: 'ORG',
});

/** One partition lists every organization, so the admin CLI never scans. */
export const organizationListPartition = 'ORGS';
export const organizationListingKey = (organizationId: string): ItemKey => ({
  pk: organizationListPartition,
  sk: `ORG#${organizationId}`,
});

/**
 * A directory's record lives in its organization's partition, so listing an organization's directories is one Query
 * and reading one by id needs only the caller's organization; the owner pointer answers "whose is this directory?"
 * for subjects that arrive by id alone.
 */
export const directoryRecordKey = (organizationId: string, directoryId: string): ItemKey => ({
  pk: `ORG#${organizationId}`,
  sk: `${directoryRecordPrefix}${directoryId}`,
});
export const directoryRecordPrefix = 'DIR#';
export const directoryOwnerKey = (directoryId: string): ItemKey => ({
  pk: `DIR#${directoryId}`,
  sk: 'OWNER',
});
export const serviceOwnerKey = (serviceId: string): ItemKey => ({ pk: `SVC#${serviceId}`, sk: 'OWNER' });

/** An entity's public keys live in the entity's own partition, so one Query returns all of them. */
export const entityKeyPrefix = 'KEY#';
export const entityKeyKey = (entity: Entity, kid: string): ItemKey => ({
  pk: entityPartition(entity),
  sk: `${entityKeyPrefix}${kid}`,
});

export const apiKeyPartition = 'API';
export const apiKeyKey = (kid: string): ItemKey => ({ pk: apiKeyPartition, sk: `KEY#${kid}` });
export const currentApiKeyKey: ItemKey = { pk: apiKeyPartition, sk: 'CURRENT' };

/** jti records are scoped to their issuer: one entity's identifiers can never collide with another's. */
export const jtiKey = (issuer: Entity, jti: string): ItemKey => ({
  pk: `JTI#${entityPartition(issuer)}#${jti}`,
  sk: 'JTI',
});
