import { randomUUID } from 'node:crypto';
import { maxServicesPerDirectory } from '#shared/domain/limits';
import type { Service, ServiceChanges } from '#shared/domain/service';
import { quote } from '#shared/echo';
import { ApiError, forbidden, invalidArgument } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { getHead, type HeadItem, ownershipOf } from '#shared/store/heads';
import * as store from '#shared/store/services';
import { isoSeconds } from '#shared/time';

/** The generic icon a service shows when it has none of its own. */
export function genericIconUrl(baseUrl: string): string {
  return `${baseUrl}/public/v3/icons/service.svg`;
}

export interface NewService {
  readonly name: string;
  readonly description?: string | null;
  readonly icon?: string | null;
  readonly callbackUrl?: string | null;
  readonly active?: boolean | null;
}

/**
 * Creates a Directory Service (owner: a directory) or an Organization Service (owner: an organization): active unless
 * told otherwise, with null description and callback URL by default. A name any service uses is SVC-001; a directory
 * that has `maxServicesPerDirectory` services already is ARG-001.
 */
export async function createService(
  owner: Entity,
  input: NewService,
  now: Date,
  ownerHead?: HeadItem,
): Promise<string> {
  const organizationId =
    owner.type === 'org' ? owner.id : ownershipOf(ownerHead ?? (await getHead(owner)))?.organizationId;
  if (!organizationId) throw forbidden(`${owner.type}:${owner.id} does not exist`);
  const service: Service = {
    id: randomUUID(),
    name: input.name,
    description: input.description ?? null,
    icon: input.icon ?? null,
    callbackUrl: input.callbackUrl ?? null,
    active: input.active ?? true,
    created: isoSeconds(now),
    owner,
    organizationId,
  };
  const outcome = await store.createService(service, now);
  if (outcome === 'name-taken') throw serviceNameTaken(input.name);
  if (outcome === 'full') {
    throw invalidArgument(
      `The directory already has ${maxServicesPerDirectory} services, the most one directory holds; create this one in another directory`,
    );
  }
  return service.id;
}

/** The owner's service; one that is another owner's, or does not exist, is 403. */
export async function requireService(owner: Entity, serviceId: string): Promise<Service> {
  const service = await store.getService(owner, serviceId);
  if (!service) throw forbidden(`Service ${serviceId} is not a service of ${owner.type}:${owner.id}`);
  return service;
}

export async function listServices(owner: Entity): Promise<Service[]> {
  return (await store.listServices(owner)).sort(
    (a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id),
  );
}

/** The named services in the order asked; any that is not the owner's is 403. */
export async function listServicesByIds(owner: Entity, ids: readonly string[]): Promise<Service[]> {
  const services = await store.getServices(owner, ids);
  const missing = ids.find((id) => !services.has(id));
  if (missing) throw forbidden(`Service ${missing} is not a service of ${owner.type}:${owner.id}`);
  return [...new Set(ids)].map((id) => services.get(id) as Service);
}

export interface ServiceUpdate {
  readonly name?: string | null;
  readonly description?: string | null;
  readonly icon?: string | null;
  readonly callbackUrl?: string | null;
  readonly active?: boolean | null;
}

/**
 * Applies the fields present. A null name or active leaves them (the Java SDK sends null for every field it was not
 * given); a null description, icon or callback URL clears it. A new name another service uses is SVC-001.
 */
export async function updateService(
  owner: Entity,
  serviceId: string,
  update: ServiceUpdate,
  now: Date,
): Promise<void> {
  const service = await requireService(owner, serviceId);
  const changes: ServiceChanges = {
    ...(update.name == null ? {} : { name: update.name }),
    ...(update.active == null ? {} : { active: update.active }),
    ...(update.description === undefined ? {} : { description: update.description }),
    ...(update.icon === undefined ? {} : { icon: update.icon }),
    ...(update.callbackUrl === undefined ? {} : { callbackUrl: update.callbackUrl }),
  };
  const outcome = await store.updateService(service, changes, now);
  if (outcome === 'name-taken') throw serviceNameTaken(update.name as string);
  if (outcome === 'missing')
    throw forbidden(`Service ${serviceId} is not a service of ${owner.type}:${owner.id}`);
}

function serviceNameTaken(name: string): ApiError {
  return new ApiError('SVC-001', `A service named ${quote(name)} already exists`);
}
