import { describe, expect, it } from 'vitest';
import { distanceMetres, earthRadiusMetres, insideFence } from '#shared/authenticator/geo';
import type { PolicyFence } from '#shared/domain/policy/effective-policy';

const metresPerDegree = (Math.PI / 180) * earthRadiusMetres;

describe('distanceMetres (haversine on the mean Earth sphere)', () => {
  it('is zero between a point and itself', () => {
    expect(distanceMetres({ latitude: 36.1, longitude: -115.2 }, { latitude: 36.1, longitude: -115.2 })).toBe(
      0,
    );
  });

  it('measures one degree along a meridian as πR/180', () => {
    expect(distanceMetres({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 })).toBeCloseTo(
      111_195.08,
      1,
    );
  });

  it('agrees with the classic Nashville–Los Angeles example (2887.26 km at R = 6372.8 km), scaled to our radius', () => {
    const distance = distanceMetres(
      { latitude: 36.12, longitude: -86.67 },
      { latitude: 33.94, longitude: -118.4 },
    );
    expect(distance).toBeCloseTo((2_887_259.9506 * earthRadiusMetres) / 6_372_800, 0);
  });

  it('takes the short way across the antimeridian', () => {
    const distance = distanceMetres({ latitude: 0, longitude: 179.9 }, { latitude: 0, longitude: -179.9 });
    expect(distance).toBeCloseTo(0.2 * metresPerDegree, 0);
  });

  it('is symmetric', () => {
    const a = { latitude: 51.5, longitude: -0.12 };
    const b = { latitude: 48.85, longitude: 2.35 };
    expect(distanceMetres(a, b)).toBe(distanceMetres(b, a));
  });
});

const hq: PolicyFence = {
  type: 'GEO_CIRCLE',
  name: 'HQ',
  latitude: 36.120825,
  longitude: -115.157216,
  radius: 200,
};
const legacyHq: PolicyFence = { ...hq, type: 'LEGACY_CIRCLE', name: null };
/** 0.0018° north of the centre: 200.15 m away. */
const justNorth = { latitude: 36.120825 + 0.0018, longitude: -115.157216 };

describe('insideFence for circles', () => {
  it.each([
    ['the centre', { latitude: 36.120825, longitude: -115.157216 }, 200, true],
    ['150 m north', { latitude: 36.120825 + 150 / metresPerDegree, longitude: -115.157216 }, 200, true],
    ['200.15 m north of a 200 m circle', justNorth, 200, false],
    ['200.15 m north of a 201 m circle', justNorth, 201, true],
    ['exactly on the edge', justNorth, distanceMetres(justNorth, hq), true],
  ])('%s', (_, location, radius, inside) => {
    expect(insideFence({ ...hq, radius }, { location })).toBe(inside);
    expect(insideFence({ ...legacyHq, radius }, { location })).toBe(inside);
  });

  it('a device that does not know where it is is inside no circle', () => {
    expect(insideFence(hq, { territory: { country: 'US' } })).toBe(false);
  });
});

describe('insideFence for territories', () => {
  const fence = (administrativeArea: string | null, postalCode: string | null): PolicyFence => ({
    type: 'TERRITORY',
    name: null,
    country: 'US',
    administrativeArea,
    postalCode,
  });

  it.each([
    ['the country alone', fence(null, null), { country: 'US' }, true],
    ['another country', fence(null, null), { country: 'CA', administrativeArea: 'CA-ON' }, false],
    ['the subdivision', fence('US-NV', null), { country: 'US', administrativeArea: 'US-NV' }, true],
    ['another subdivision', fence('US-NV', null), { country: 'US', administrativeArea: 'US-CA' }, false],
    ['an unknown subdivision when the fence names one', fence('US-NV', null), { country: 'US' }, false],
    [
      'the postal code',
      fence('US-NV', '89120'),
      { country: 'US', administrativeArea: 'US-NV', postalCode: '89120' },
      true,
    ],
    [
      'another postal code',
      fence('US-NV', '89120'),
      { country: 'US', administrativeArea: 'US-NV', postalCode: '89121' },
      false,
    ],
    [
      'a postal code typed differently',
      fence(null, 'SW1A 1AA'),
      { country: 'US', postalCode: 'sw1a1aa' },
      true,
    ],
    ['a lower-case country', fence(null, null), { country: 'us' }, true],
  ])('%s', (_, territoryFence, territory, inside) => {
    expect(insideFence(territoryFence, { territory })).toBe(inside);
  });

  it('a device that does not know its territory is inside none', () => {
    expect(insideFence(fence(null, null), { location: { latitude: 36.1, longitude: -115.1 } })).toBe(false);
  });
});
