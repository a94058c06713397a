import { createHash } from 'node:crypto';
import type { Entity, EntityType } from '#shared/protocol/entity';
import { itemKinds } from '#shared/store/item-kinds';

/**
 * Every item key of the single table, in one place. Partitions are named after what they hold; handlers and use cases
 * never build key strings.
 *
 *   ORG#<org>   ORG              the organization (its head: name, key set)
 *               KEY#<kid>        its public keys
 *               DIR#<dir>        its directories' records
 *               DIRNAME#<name>   directory name claims (unique per organization)
 *               SVC#<svc>        its Organization Services' records
 *   DIR#<dir>   HEAD             the directory's head: owner, key set
 *               KEY#<kid>        its public keys
 *               SVC#<svc>        its Directory Services' records
 *               SETTINGS         its protections against push fatigue (operator settings)
 *               PUSHCREDS        its APNs and FCM credentials, sealed
 *               RATE#<h>         a user's request counts in its latest rate-limit window and the one before (h: the
 *                                identifier's SHA-256)
 *               LOCK#<h>         a user's lock after a fraud denial
 *               LINKFAILS#<window>  failed link attempts with the directory's SDK keys in one window
 *   SVC#<svc>   HEAD             the service's head: owners, key set
 *               KEY#<kid>        its public keys
 *               POLICY           its service policy
 *               USER#<identifier>  a directory user: devices, sessions, pending slot, TOTP
 *   ORG#<org>   USERIDX#<h>#<dir>  which directories know an identifier (h: its SHA-256), for Organization Services
 *   USER#<user> HEAD             a user by id: directory and identifier
 *   DEV#<dev>   HEAD, KEY#<kid>  a linked device: its user, its keys
 *   LINKCODE#<code>  LINKCODE    a linking code while it is valid (and how often it was presented wrongly)
 *   LINKADDR#<block>  FAILS#<window>  failed link attempts from one address block in one window
 *   AUTH#<id>   AUTH             an authorization request
 *   V1APP#<app key>  V1APP       the service a legacy v1 app key belongs to
 *   SVCNAME#<name>  CLAIM        service name claims (unique across all services)
 *                   SKELETON     service look-alike claims (the name's confusables skeleton, unique likewise)
 *   SDKKEY#<key>    SDKKEY       which directory an SDK key belongs to
 *   API             KEY#<kid>, CURRENT   the API's public keys
 *   JTI#<issuer>#<jti>  JTI      replay protection
 *   CONSOLE#…       the console's admins, invites, sessions, challenges, sign-in counts (console-keys.ts)
 *   HEALTH#<org>  <bucket>#push#<provider>, <bucket>#auth  health counters of one 5-minute bucket (health-metrics.ts)
 *
 * Each partition prefix is an item kind (item-kinds.ts): what a route declares it touches and IAM grants.
 */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const partitionPrefix: Readonly<Record<EntityType, string>> = {
  org: itemKinds.organization.prefix,
  dir: itemKinds.directory.prefix,
  svc: itemKinds.service.prefix,
  dev: itemKinds.device.prefix,
};

export function entityPartition(entity: Entity): string {
  return `${partitionPrefix[entity.type]}${entity.id}`;
}

/** The item that says an entity exists, who owns it and how many keys it has. */
export function entityHeadKey(entity: Entity): ItemKey {
  return { pk: entityPartition(entity), sk: entity.type === 'org' ? 'ORG' : 'HEAD' };
}

export const organizationKey = (organizationId: string): ItemKey =>
  entityHeadKey({ type: 'org', id: organizationId });

/** One partition lists every organization, so the admin CLI never scans. */
export const organizationListPartition = itemKinds.organizationList.prefix;
export const organizationListingKey = (organizationId: string): ItemKey => ({
  pk: organizationListPartition,
  sk: `ORG#${organizationId}`,
});

export const directoryRecordPrefix = 'DIR#';
export const directoryRecordKey = (organizationId: string, directoryId: string): ItemKey => ({
  pk: entityPartition({ type: 'org', id: organizationId }),
  sk: `${directoryRecordPrefix}${directoryId}`,
});
export const directoryNameClaimKey = (organizationId: string, nameKey: string): ItemKey => ({
  pk: entityPartition({ type: 'org', id: organizationId }),
  sk: `DIRNAME#${nameInKey(nameKey)}`,
});

export const serviceRecordPrefix = 'SVC#';
/** A service's record lives in its owner's partition: its directory's, or its organization's. */
export const serviceRecordKey = (owner: Entity, serviceId: string): ItemKey => ({
  pk: entityPartition(owner),
  sk: `${serviceRecordPrefix}${serviceId}`,
});
export const serviceNameClaimKey = (nameKey: string): ItemKey => ({
  pk: `${itemKinds.serviceName.prefix}${nameInKey(nameKey)}`,
  sk: 'CLAIM',
});
/** The claim of a name's look-alike form (name-skeleton.ts), beside the name claims in the same partitions. */
export const serviceSkeletonClaimKey = (skeleton: string): ItemKey => ({
  pk: `${itemKinds.serviceName.prefix}${nameInKey(skeleton)}`,
  sk: 'SKELETON',
});

/**
 * A name's comparison form as a key part: itself, or its SHA-256 when it would not fit a key. NFKC can make a
 * 200-character name thousands of bytes long (one U+FDFA becomes 18 characters); a sort key holds 1 024.
 */
function nameInKey(nameKey: string): string {
  if (Buffer.byteLength(nameKey) <= 512) return nameKey;
  return `sha256:${createHash('sha256').update(nameKey).digest('hex')}`;
}
export const servicePolicyKey = (serviceId: string): ItemKey => ({
  pk: entityPartition({ type: 'svc', id: serviceId }),
  sk: 'POLICY',
});

export const userRecordKey = (directoryId: string, identifier: string): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: `USER#${identifier}`,
});
/** Kept apart from the directory's record, which the SDKs read, so that settings never change its shape. */
export const directorySettingsKey = (directoryId: string): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: 'SETTINGS',
});
/** Apart from the directory's record, which many requests read, since a PKCS#12 may be tens of kilobytes. */
export const pushCredentialsKey = (directoryId: string): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: 'PUSHCREDS',
});
/** Identifiers go in by their SHA-256: a 256-character identifier can be 1 024 bytes, a sort key's whole limit. */
const identifierDigest = (identifier: string) => createHash('sha256').update(identifier).digest('hex');
/** One per user, holding its latest window and the one before (the sliding estimate needs both). */
export const rateCounterKey = (directoryId: string, identifier: string): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: `RATE#${identifierDigest(identifier)}`,
});
export const fraudLockPrefix = 'LOCK#';
export const fraudLockKey = (directoryId: string, identifier: string): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: `${fraudLockPrefix}${identifierDigest(identifier)}`,
});
export const userHeadKey = (userId: string): ItemKey => ({
  pk: `${itemKinds.userHead.prefix}${userId}`,
  sk: 'HEAD',
});
export const organizationUserIndexPrefix = (identifierHash: string) => `USERIDX#${identifierHash}#`;
export const organizationUserIndexKey = (
  organizationId: string,
  identifierHash: string,
  directoryId: string,
): ItemKey => ({
  pk: entityPartition({ type: 'org', id: organizationId }),
  sk: `${organizationUserIndexPrefix(identifierHash)}${directoryId}`,
});
export const linkCodeKey = (code: string): ItemKey => ({
  pk: `${itemKinds.linkCode.prefix}${code}`,
  sk: 'LINKCODE',
});
/** Failed link attempts, per window: of an address block (domain/address-block.ts), and of a directory's SDK keys. */
export const linkFailuresByAddressKey = (block: string, windowStart: number): ItemKey => ({
  pk: `${itemKinds.linkAddress.prefix}${block}`,
  sk: `FAILS#${windowStart}`,
});
export const linkFailuresByDirectoryKey = (directoryId: string, windowStart: number): ItemKey => ({
  pk: entityPartition({ type: 'dir', id: directoryId }),
  sk: `LINKFAILS#${windowStart}`,
});
export const authRequestKey = (authId: string): ItemKey => ({
  pk: `${itemKinds.authRequest.prefix}${authId}`,
  sk: 'AUTH',
});
export const v1AppKeyLookupKey = (appKey: string): ItemKey => ({
  pk: `${itemKinds.v1AppKey.prefix}${appKey}`,
  sk: 'V1APP',
});

export const sdkKeyLookupKey = (sdkKey: string): ItemKey => ({
  pk: `${itemKinds.sdkKey.prefix}${sdkKey}`,
  sk: 'SDKKEY',
});

/**
 * The sort-key range of an entity's head and keys: `HEAD` sorts just before `KEY#…`, so one Query returns both for
 * directories, services and devices. An organization's head (`ORG`) sorts elsewhere; the pipeline needs only its keys.
 */
export function headAndKeysRange(entity: Entity): { pk: string; from: string; to: string } {
  const pk = entityPartition(entity);
  return entity.type === 'org'
    ? { pk, from: 'KEY#', to: 'KEY#\uffff' }
    : { pk, from: 'HEAD', to: 'KEY#\uffff' };
}

/** An entity's public keys live in the entity's own partition, so one Query returns all of them. */
export const entityKeyPrefix = 'KEY#';
export const entityKeyKey = (entity: Entity, kid: string): ItemKey => ({
  pk: entityPartition(entity),
  sk: `${entityKeyPrefix}${kid}`,
});

export const apiKeyPartition = itemKinds.apiPublicKey.prefix;
export const apiKeyKey = (kid: string): ItemKey => ({ pk: apiKeyPartition, sk: `KEY#${kid}` });
export const currentApiKeyKey: ItemKey = { pk: apiKeyPartition, sk: 'CURRENT' };

/** jti records are scoped to their issuer: one entity's identifiers can never collide with another's. */
export const jtiKey = (issuer: Entity, jti: string): ItemKey => ({
  pk: `${itemKinds.jti.prefix}${entityPartition(issuer)}#${jti}`,
  sk: 'JTI',
});
