import type { PolicyFence } from '#shared/domain/policy/effective-policy';

export interface Position {
  readonly latitude: number;
  readonly longitude: number;
}

export interface Territory {
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** ISO 3166-2, such as "US-NV". */
  readonly administrativeArea?: string;
  readonly postalCode?: string;
}

/** Where the device is, as far as it knows; either part may be unknown. */
export interface Whereabouts {
  readonly location?: Position;
  readonly territory?: Territory;
}

/** The IUGG mean Earth radius in metres: the sphere that best fits the ellipsoid on average. */
export const earthRadiusMetres = 6_371_008.8;

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/**
 * Great-circle distance in metres (haversine). A sphere is off by at most about 0.5 % against the ellipsoid,
 * metres at the size of a geofence, and needs no iteration that could fail to converge.
 */
export function distanceMetres(a: Position, b: Position): number {
  const dLatitude = radians(b.latitude - a.latitude);
  const dLongitude = radians(b.longitude - a.longitude);
  const h =
    Math.sin(dLatitude / 2) ** 2 +
    Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLongitude / 2) ** 2;
  return 2 * earthRadiusMetres * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Codes compared as people type them: case and spaces do not matter ("89 120" is "89120"). */
const code = (text: string) => text.replace(/\s+/g, '').toUpperCase();

/**
 * Whether the device is inside `fence`. A circle includes its edge. A territory matches on country, then on the
 * subdivision and postal code only when the fence names them. An unknown position or territory is inside nothing:
 * a device cannot claim a place it cannot tell.
 */
export function insideFence(fence: PolicyFence, where: Whereabouts): boolean {
  if (fence.type === 'TERRITORY') {
    const territory = where.territory;
    if (territory === undefined || code(territory.country) !== code(fence.country)) return false;
    const matches = (wanted: string | null, actual: string | undefined) =>
      wanted === null || (actual !== undefined && code(actual) === code(wanted));
    return (
      matches(fence.administrativeArea, territory.administrativeArea) &&
      matches(fence.postalCode, territory.postalCode)
    );
  }
  return where.location !== undefined && distanceMetres(where.location, fence) <= fence.radius;
}

export function insideAny(fences: readonly PolicyFence[], where: Whereabouts): boolean {
  return fences.some((fence) => insideFence(fence, where));
}
