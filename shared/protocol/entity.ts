/**
 * The kinds of entity that sign requests or are addressed by them: the SDKs' three (docs/protocol.md#entities-and-keys) and this
 * service's own devices, which sign the device API's requests.
 */
export type EntityType = 'org' | 'dir' | 'svc' | 'dev';

export interface Entity {
  readonly type: EntityType;
  /** Lowercase canonical UUID. */
  readonly id: string;
}

const entityPattern = /^(org|dir|svc|dev):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses `<type>:<uuid>`. The SDKs send lowercase ids, but Python's and Java's UUID parsers accept either case, so a
 * caller that typed an upper-case id must still reach its own entity.
 */
export function parseEntity(value: unknown): Entity | undefined {
  if (typeof value !== 'string') return undefined;
  const match = entityPattern.exec(value);
  if (!match) return undefined;
  return { type: (match[1] as string).toLowerCase() as EntityType, id: (match[2] as string).toLowerCase() };
}

export function formatEntity(entity: Entity): string {
  return `${entity.type}:${entity.id}`;
}

export function sameEntity(a: Entity, b: Entity): boolean {
  return a.type === b.type && a.id === b.id;
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidPattern.test(value);
}
