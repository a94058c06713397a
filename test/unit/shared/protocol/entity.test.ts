import { describe, expect, it } from 'vitest';
import { formatEntity, parseEntity } from '#shared/protocol/entity';

const id = '6f1c7b2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b';

describe('parseEntity', () => {
  it.each(['org', 'dir', 'svc'] as const)('reads %s:<uuid>', (type) => {
    expect(parseEntity(`${type}:${id}`)).toEqual({ type, id });
  });

  it('normalises an upper-case id, as the SDKs’ UUID parsers accept one', () => {
    expect(parseEntity(`ORG:${id.toUpperCase()}`)).toEqual({ type: 'org', id });
  });

  it.each([`usr:${id}`, id, `org:${id}:x`, 'org:not-a-uuid', `org: ${id}`, 42, undefined])(
    'refuses %s',
    (value) => {
      expect(parseEntity(value)).toBeUndefined();
    },
  );

  it('formats back to the wire form', () => {
    expect(formatEntity({ type: 'svc', id })).toBe(`svc:${id}`);
  });
});
