import { describe, expect, it } from 'vitest';
import { nameSkeleton } from '#shared/domain/name-skeleton';
import { nameKey } from '#shared/domain/names';

describe('nameSkeleton', () => {
  it.each([
    ['a Cyrillic А for a Latin A', 'Acme Bank', '\u0410cme Bank'],
    ['Cyrillic р, а and у for Latin p, a and y', 'PayPal', '\u0420\u0430\u0443\u0420\u0430l'],
    ['rn for m', 'Acme Bank', 'Acrne Bank'],
    ['RN for M, across case', 'ACME', 'acrne'],
    ['a Cyrillic capital among Latin capitals', 'ACME', '\u0410CME'],
    ['a digit one for a lower-case L', 'Paypal', 'Paypa1'],
    ['a capital I for a lower-case L', 'Paypal', 'PaypaI'],
    ['a digit zero for an O', 'Bold', 'B0ld'],
  ])('makes names that look alike equal: %s', (_, name, lookAlike) => {
    expect(nameKey(lookAlike)).not.toBe(nameKey(name));
    expect(nameSkeleton(lookAlike)).toBe(nameSkeleton(name));
  });

  it.each([
    ['fullwidth letters', 'Acme Bank', '\uff21\uff43\uff4d\uff45 \uff22\uff41\uff4e\uff4b'],
    ['case', 'ACME BANK', 'acme bank'],
    ['spacing', 'Acme Bank', '  Acme \t Bank '],
    ['fullwidth capitals with a Cyrillic А', 'acme bank', '\u0410\uff23\uff2d\uff25 BANK'],
  ])('joins what the comparison form joins: %s', (_, name, variant) => {
    expect(nameSkeleton(variant)).toBe(nameSkeleton(name));
  });

  it.each([
    ['Acme Bank', 'Acme Bonk'],
    ['Acme', 'Acne'],
    ['Straße', 'Strasse'],
  ])('keeps names that look different apart: %s, %s', (name, other) => {
    expect(nameSkeleton(name)).not.toBe(nameSkeleton(other));
  });
});
