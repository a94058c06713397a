import { describe, expect, it } from 'vitest';
import { clip, echoValue, quote } from '#shared/echo';
import { ApiError } from '#shared/errors';

describe('clip', () => {
  it.each([
    ['short text as it is', 'abc', 3, 'abc'],
    ['long text to its prefix and an ellipsis', 'abcdef', 3, 'abc…'],
    ['before a surrogate pair rather than through it', 'ab😀cd', 3, 'ab…'],
  ])('keeps %s', (_, text, max, clipped) => {
    expect(clip(text, max)).toBe(clipped);
  });
});

describe('quote', () => {
  it('quotes a clipped prefix as JSON, with control characters and lone surrogates escaped', () => {
    expect(quote(`\u0000\r\n"\ud800${'x'.repeat(100)}`, 8)).toBe('"\\u0000\\r\\n\\"\\ud800xxx…"');
  });
});

describe('echoValue', () => {
  it.each([
    ['a string, clipped', 'y'.repeat(100), `${'y'.repeat(40)}…`],
    ['a number', 1e308, '1e+308'],
    ['null', null, 'null'],
    ['an array by its kind', ['RS256'], 'an array'],
    ['an object by its kind', { alg: 'RS256' }, 'an object'],
  ])('shows %s', (_, value, shown) => {
    expect(echoValue(value)).toBe(shown);
  });

  it('does not walk a value nested deeper than the stack', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 1_000_000; level++) deep = [deep];
    expect(echoValue(deep)).toBe('an array');
  });
});

describe('ApiError', () => {
  it('caps its detail, so no refusal is larger than a few hundred characters', () => {
    const error = new ApiError('ARG-001', `name: ${'z'.repeat(100_000)}`);
    expect({ detail: error.detail.length, message: error.message.length < 520 }).toEqual({
      detail: 501,
      message: true,
    });
  });
});
