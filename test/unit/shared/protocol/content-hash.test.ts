import { describe, expect, it } from 'vitest';
import { contentHash, isHashFunction } from '#shared/protocol/content-hash';

describe('contentHash', () => {
  it.each([
    ['S256', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'S384',
      'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
    ],
    [
      'S512',
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    ],
  ] as const)('%s is the lowercase hex digest of the bytes', (func, expected) => {
    expect(contentHash(func, 'abc')).toBe(expected);
    expect(contentHash(func, Buffer.from('abc'))).toBe(expected);
  });

  it('knows only S256, S384 and S512', () => {
    expect(['S256', 'S384', 'S512'].every(isHashFunction)).toBe(true);
    expect(['SHA256', 's256', 'S1', 'toString', undefined].some(isHashFunction)).toBe(false);
  });
});
