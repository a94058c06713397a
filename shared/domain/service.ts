import type { Entity } from '#shared/protocol/entity';

/** A Directory Service (owner: a directory) or an Organization Service (owner: an organization). */
export interface Service {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  /** Null means the generic icon. */
  readonly icon: string | null;
  readonly callbackUrl: string | null;
  readonly active: boolean;
  /** ISO 8601 UTC. */
  readonly created: string;
  /** The directory or organization whose partition holds the service. */
  readonly owner: Entity;
  readonly organizationId: string;
}

/** What may change on a service; absent fields stay, null clears a nullable one. */
export interface ServiceChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly icon?: string | null;
  readonly callbackUrl?: string | null;
  readonly active?: boolean;
}

/** A service as the wire shows it (docs/protocol.md#objects, docs/protocol.md#objects). */
export interface ServiceView {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly icon: string;
  readonly callback_url: string | null;
  readonly active: boolean;
}

export function toServiceView(service: Service, genericIconUrl: string): ServiceView {
  return {
    id: service.id,
    name: service.name,
    description: service.description,
    icon: service.icon ?? genericIconUrl,
    callback_url: service.callbackUrl,
    active: service.active,
  };
}
