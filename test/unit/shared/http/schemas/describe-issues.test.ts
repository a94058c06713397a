import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createServiceBody, listServicesByIdsBody } from '#shared/http/schemas/services';
import { describeIssues } from '#shared/http/schemas/describe-issues';

const huge = 'x'.repeat(1_000_000);
const prefix = 'x'.repeat(40);

function detailOf(schema: v.GenericSchema, value: unknown): string {
  const result = v.safeParse(schema, value);
  if (result.success) throw new Error('expected the value to fail the schema');
  return describeIssues(result.issues);
}

describe('describeIssues', () => {
  it.each([
    [
      'a value of the wrong type',
      listServicesByIdsBody,
      { service_ids: huge },
      `service_ids: Invalid type: Expected Array but received "${prefix}…"`,
    ],
    [
      'an unknown key',
      listServicesByIdsBody,
      { service_ids: [], [huge]: 1 },
      `["${prefix}…"]: Invalid key: Expected never but received "${prefix}…"`,
    ],
    [
      'a value in an array',
      v.strictObject({ tags: v.array(v.number()) }),
      { tags: [1, huge] },
      `tags.1: Invalid type: Expected number but received "${prefix}…"`,
    ],
  ])('repeats only a prefix of %s, keeping the path and what was expected', (_, schema, value, detail) => {
    expect(detailOf(schema, value)).toBe(detail);
  });

  it('stays small however many fields are wrong, naming the first five', () => {
    const body = { name: 5, description: 5, icon: 5, callback_url: 5, active: huge, [huge]: huge };
    const detail = detailOf(createServiceBody, body);
    expect({
      short: detail.length < 600,
      fields: detail.split('; ').map((issue) => issue.slice(0, issue.indexOf(':'))),
    }).toEqual({ short: true, fields: ['name', 'description', 'icon', 'callback_url', 'active'] });
  });

  it('escapes control characters and keeps short values whole', () => {
    expect(detailOf(v.strictObject({ n: v.number() }), { n: 'a\r\nb' })).toBe(
      'n: Invalid type: Expected number but received "a\\r\\nb"',
    );
  });
});
