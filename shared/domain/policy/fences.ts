import { policyLimits, requireAtMost, requireLength } from '#shared/domain/policy/limits';
import {
  child,
  fail,
  get,
  item,
  type JsonObject,
  readName,
  readNumber,
  readObject,
  readOptionalArray,
} from '#shared/domain/policy/reader';
import { quote } from '#shared/echo';

/** A circle on the map: a LEGACY geofence location, and the body of a GEO_CIRCLE fence. */
export interface GeoCircle {
  readonly name: string | null;
  readonly latitude: number;
  readonly longitude: number;
  /** Metres, > 0. */
  readonly radius: number;
}

export interface GeoCircleFence extends GeoCircle {
  readonly type: 'GEO_CIRCLE';
}

export interface TerritoryFence {
  readonly type: 'TERRITORY';
  readonly name: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string;
  /** ISO 3166-2 subdivision of `country` (`US-NV`), or null for the whole country. */
  readonly administrativeArea: string | null;
  readonly postalCode: string | null;
}

export type Fence = GeoCircleFence | TerritoryFence;

const geoCircleKeys = ['type', 'name', 'latitude', 'longitude', 'radius'] as const;
const territoryKeys = ['type', 'name', 'country', 'administrative_area', 'postal_code'] as const;
const countryPattern = /^[A-Z]{2}$/;
// PY's TerritoryFenceValidator pattern, so an area we accept is one PY accepts back.
const areaPattern = /^[A-Z]{2}-[A-Z]{2}[A-Z]?$/;

/** Reads name, latitude, longitude and radius from an object whose keys were already checked. */
export function readGeoCircle(object: JsonObject, path: string): GeoCircle {
  const radius = get(object, 'radius');
  const radiusPath = child(path, 'radius');
  if (typeof radius !== 'number' || !Number.isFinite(radius) || radius <= 0) {
    fail(radiusPath, 'must be a number greater than 0');
  }
  if (radius > policyLimits.radiusMetres) {
    fail(radiusPath, `must be at most ${policyLimits.radiusMetres} (metres)`);
  }
  if (radius < tiniestNumber) fail(radiusPath, `must be at least ${tiniestNumber} (metres)`);
  return {
    name: readFenceName(get(object, 'name'), child(path, 'name')),
    latitude: storable(readNumber(get(object, 'latitude'), child(path, 'latitude'), -90, 90)),
    longitude: storable(readNumber(get(object, 'longitude'), child(path, 'longitude'), -180, 180)),
    radius: radius + 0,
  };
}

/**
 * The smallest magnitude besides 0 the store holds a number with: it refuses a whole policy holding a smaller one.
 * Nothing a device measures is that small (1e-130 degrees, 1e-130 metres).
 */
const tiniestNumber = 1e-130;

/** A coordinate closer to 0 than the store can hold is 0 to any device, and is kept as 0. */
function storable(coordinate: number): number {
  return Math.abs(coordinate) < tiniestNumber ? 0 : coordinate;
}

/** One `{type: GEO_CIRCLE|TERRITORY, …}` fence, as PY `to_dict` (null-valued keys) or JV (nulls omitted) sends it. */
export function parseFence(value: unknown, path: string): Fence {
  const type = get(readObject(value, path, [...geoCircleKeys, ...territoryKeys]), 'type');
  if (type === 'GEO_CIRCLE') {
    const object = readObject(value, path, geoCircleKeys);
    return { type, ...readGeoCircle(object, path) };
  }
  if (type === 'TERRITORY') return parseTerritory(readObject(value, path, territoryKeys), path);
  const problem = typeof type === 'string' ? `unknown fence type ${quote(type)}` : 'required';
  return fail(child(path, 'type'), `${problem}, must be "GEO_CIRCLE" or "TERRITORY"`);
}

function parseTerritory(object: JsonObject, path: string): TerritoryFence {
  const country = get(object, 'country');
  if (typeof country !== 'string' || !countryPattern.test(country)) {
    fail(child(path, 'country'), 'must be an upper-case ISO 3166-1 alpha-2 code such as "US"');
  }
  const area = get(object, 'administrative_area');
  if (area !== undefined && area !== null) {
    if (typeof area !== 'string' || !areaPattern.test(area)) {
      fail(
        child(path, 'administrative_area'),
        'must be null or an upper-case ISO 3166-2 code such as "US-NV"',
      );
    }
    if (!area.startsWith(`${country}-`)) {
      fail(child(path, 'administrative_area'), `${quote(area)} is not a subdivision of ${quote(country)}`);
    }
  }
  const postalCode = get(object, 'postal_code');
  if (postalCode !== undefined && postalCode !== null && typeof postalCode !== 'string') {
    fail(child(path, 'postal_code'), 'must be a string or null');
  }
  if (typeof postalCode === 'string') {
    requireLength(postalCode, policyLimits.postalCodeLength, child(path, 'postal_code'));
  }
  return {
    type: 'TERRITORY',
    name: readFenceName(get(object, 'name'), child(path, 'name')),
    country,
    administrativeArea: typeof area === 'string' ? area : null,
    // PY reads an empty postal code as None; one spelling of "none" keeps the stored form canonical.
    postalCode: typeof postalCode === 'string' && postalCode !== '' ? postalCode : null,
  };
}

/** A fence's optional name, within `policyLimits.nameLength`. */
function readFenceName(value: unknown, path: string): string | null {
  const name = readName(value, path);
  if (name !== null) requireLength(name, policyLimits.nameLength, path);
  return name;
}

/** Refuses more fences than a policy may hold, before any of them is read. */
export function requireFenceCount(fences: readonly unknown[], path: string): void {
  requireAtMost(fences, policyLimits.fences, path, 'fences');
}

/** A `fences` list; absent or null is empty, as JV omits null lists. */
export function parseFences(value: unknown, path: string): Fence[] {
  const fences = readOptionalArray(value, path);
  requireFenceCount(fences, path);
  return fences.map((fence, index) => parseFence(fence, item(path, index)));
}

/**
 * A circle as the LEGACY geofence factor lists it. A null name is left out, not printed as null: JV reads a present
 * `name` with `asText()` and would turn null into the string "null".
 */
export function printGeoCircle(circle: GeoCircle): Record<string, unknown> {
  return {
    ...(circle.name === null ? {} : { name: circle.name }),
    latitude: circle.latitude,
    longitude: circle.longitude,
    radius: circle.radius,
  };
}

/**
 * A fence as docs/protocol.md#policies shows it. A null name is left out: PY's PolicyFenceValidator declares `name` not_empty with a
 * default for a missing key, so an explicit null makes `get_advanced_service_policy` fail while a missing key reads
 * as None. Territory's optional codes print as null, which both SDKs read as "not set".
 */
export function printFence(fence: Fence): Record<string, unknown> {
  const name = fence.name === null ? {} : { name: fence.name };
  if (fence.type === 'GEO_CIRCLE') {
    return {
      type: fence.type,
      ...name,
      latitude: fence.latitude,
      longitude: fence.longitude,
      radius: fence.radius,
    };
  }
  return {
    type: fence.type,
    ...name,
    country: fence.country,
    administrative_area: fence.administrativeArea,
    postal_code: fence.postalCode,
  };
}
