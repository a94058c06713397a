import { describe, expect, it } from 'vitest';
import { parseServicePolicy } from '#shared/domain/policy/service-policy';
import { summarizeServicePolicy } from '#shared/domain/policy/summary';

const summary = (policy: unknown) => summarizeServicePolicy(parseServicePolicy(policy));

describe('a service policy’s summary', () => {
  it('says the blank policy asks nothing beyond the linked device', () => {
    expect(summary({ type: 'LEGACY', factors: [], minimum_requirements: [] })).toBe(
      'Nothing beyond the linked device.',
    );
    expect(summary({ type: 'METHOD_AMOUNT', amount: 0 })).toBe('Nothing beyond the linked device.');
  });

  it('names an amount of methods, and factor types in their fixed order', () => {
    expect(summary({ type: 'METHOD_AMOUNT', amount: 1 })).toBe('At least 1 method.');
    expect(summary({ type: 'FACTORS', factors: ['POSSESSION', 'INHERENCE'] })).toBe(
      'Factors: inherence (something the user is) and possession (something the user has).',
    );
  });

  it('names circles by radius and centre, territories by area or country and postal code, and the device flags', () => {
    expect(
      summary({
        type: 'METHOD_AMOUNT',
        amount: 2,
        fences: [
          { type: 'GEO_CIRCLE', name: 'HQ', latitude: 52.370216, longitude: 4.895168, radius: 2500 },
          { type: 'TERRITORY', country: 'US', postal_code: '89109' },
          { type: 'TERRITORY', name: 'Nevada', country: 'US', administrative_area: 'US-NV' },
        ],
        deny_rooted_jailbroken: true,
        deny_emulator_simulator: true,
      }),
    ).toBe(
      'At least 2 methods; inside “HQ”: 2.5 km around 52.37022, 4.89517, US 89109 or “Nevada”: US-NV; not on a rooted or jailbroken device; not on an emulator or simulator.',
    );
  });

  it('says what a conditional policy asks inside its fences and outside them', () => {
    expect(
      summary({
        type: 'COND_GEO',
        fences: [{ type: 'TERRITORY', country: 'NL' }],
        inside: { type: 'METHOD_AMOUNT', amount: 1 },
        outside: { type: 'FACTORS', factors: ['KNOWLEDGE'] },
      }),
    ).toBe('Inside NL: At least 1 method; outside: Factors: knowledge (something the user knows).');
  });

  it('reads a LEGACY policy’s types or amount, its geofence and its device integrity', () => {
    expect(
      summary({
        type: 'LEGACY',
        knowledge_required: true,
        inherence_required: true,
        deny_rooted_jailbroken: true,
        fences: [{ type: 'GEO_CIRCLE', name: 'Office', latitude: 1, longitude: 2, radius: 300 }],
      }),
    ).toBe(
      'Factors: inherence (something the user is) and knowledge (something the user knows); inside “Office”: 300 m around 1, 2; not on a rooted or jailbroken device.',
    );
    expect(
      summary({
        type: 'LEGACY',
        minimum_requirements: [{ requirement: 'authenticated', any: 2 }],
        factors: [],
      }),
    ).toBe('At least 2 methods.');
  });
});
