import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BodyOperation, bodyOperations, bodyRequest } from '#test/support/body-operations';
import { type FuzzTarget, startFuzzTarget } from '#test/support/fuzz-harness';
import {
  deepJsonText,
  fuzzRuns,
  hostileJson,
  hostileText,
  hostileUrl,
  pollutingMember,
} from '#test/support/hostile';

/**
 * Decrypted bodies that break the schema of the operation they are sent to: a field of the wrong type, a field the
 * schema does not know, any JSON at all, nesting thousands of levels deep, megabytes in one field. Every answer keeps
 * the harness's invariants (no 5xx, a documented error, a bounded error body); the refusal is ARG-001 naming the
 * field, or SVC-002 for a policy, which only the use case reads.
 */
let target: FuzzTarget;
let operations: BodyOperation[];

beforeAll(async () => {
  target = await startFuzzTarget();
  operations = await bodyOperations(target);
});
afterAll(async () => {
  await target?.stop();
});

async function send(operation: BodyOperation, json: string) {
  const request = await bodyRequest(target, operation, { json });
  return target.check(request, await target.invoke(request));
}

const anOperation = () => fc.constantFrom(...operations);
const outcome = (answer: { status: number; code?: string }) => ({ status: answer.status, code: answer.code });
const operationAt = (path: string) =>
  operations.find((operation) => operation.path === path) as BodyOperation;

/** Every field of a valid body, however deep, with its path; an empty list is a field of its own. */
function leaves(
  value: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; value: unknown }[] {
  const members = Array.isArray(value) ? [...value.entries()] : isObject(value) ? Object.entries(value) : [];
  if (members.length === 0) return [{ path, value }];
  return members.flatMap(([key, member]) => leaves(member, [...path, key]));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function replaced(body: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(body) ? [...body] : { ...(body as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = replaced(copy[head], rest, value);
  return copy;
}

const kindOf = (value: unknown) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);

/** Values of every JSON kind but null, which optional fields accept. */
const wrongValues: readonly unknown[] = [0, -1.5, 1e308, true, false, '', 'text', [], ['x'], {}, { a: 1 }];

describe('the operations under test', () => {
  it('each accept their valid body: a refusal below is the mutation’s, not the base body’s', async () => {
    const codes = [];
    for (const operation of operations)
      codes.push((await send(operation, JSON.stringify(operation.body))).code);
    expect(codes.filter((code) => code === 'ARG-001')).toEqual([]);
  });
});

describe('a body with one field of the wrong type', () => {
  it('is refused with ARG-001 naming that field, at any depth', async () => {
    const mutation = anOperation().chain((operation) => {
      const typed = leaves(operation.body).filter(
        ({ path }) => !operation.untyped?.includes(String(path[0])) && path.length > 0,
      );
      return fc.record({
        operation: fc.constant(operation),
        leaf: fc.constantFrom(...typed),
        wrong: fc.constantFrom(...wrongValues),
      });
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ operation, leaf, wrong }) => {
        fc.pre(kindOf(wrong) !== kindOf(leaf.value));
        const answer = await send(operation, JSON.stringify(replaced(operation.body, leaf.path, wrong)));
        expect({
          status: answer.status,
          code: answer.code,
          field: String(answer.detail).split(': ')[0],
        }).toEqual({
          status: 400,
          code: 'ARG-001',
          field: leaf.path.join('.'),
        });
      }),
      fuzzRuns(120),
    );
  });

  it('is refused with SVC-002 when it is a policy that is not one', async () => {
    const policyOperation = operations.find((operation) => operation.untyped?.includes('policy'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...wrongValues), async (policy) => {
        const body = { ...policyOperation?.body, policy };
        const answer = await send(policyOperation as BodyOperation, JSON.stringify(body));
        expect({ status: answer.status, code: answer.code }).toEqual({ status: 400, code: 'SVC-002' });
      }),
      fuzzRuns(20),
    );
  });
});

describe('a body with a field the schema does not know', () => {
  const knownFields = () => new Set(operations.flatMap((operation) => Object.keys(operation.body)));

  it('is refused with ARG-001, whatever the key and its value', async () => {
    await fc.assert(
      fc.asyncProperty(
        anOperation(),
        hostileText({ maxLength: 8 }),
        hostileJson(),
        async (operation, key, value) => {
          fc.pre(!knownFields().has(key));
          const answer = await send(operation, JSON.stringify({ ...operation.body, [key]: value }));
          expect({ status: answer.status, code: answer.code }).toEqual({ status: 400, code: 'ARG-001' });
        },
      ),
      fuzzRuns(100),
    );
  });

  it('is refused when it would pollute a prototype, and pollutes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(anOperation(), pollutingMember(), async (operation, member) => {
        const json = `{${member},${JSON.stringify(operation.body).slice(1)}`;
        const answer = await send(operation, json);
        expect({
          status: answer.status,
          code: answer.code,
          polluted: (Object.prototype as Record<string, unknown>).polluted,
        }).toEqual({ status: 400, code: 'ARG-001', polluted: undefined });
      }),
      fuzzRuns(40),
    );
  });
});

describe('a body that is any JSON at all', () => {
  it('is refused with ARG-001 unless it is an object of known fields', async () => {
    const known = new Set(operations.flatMap((operation) => Object.keys(operation.body)));
    await fc.assert(
      fc.asyncProperty(anOperation(), hostileJson(), async (operation, value) => {
        const keys = isObject(value) ? Object.keys(value) : [];
        fc.pre(!isObject(value) || keys.length === 0 || keys.some((key) => !known.has(key)));
        const answer = await send(operation, JSON.stringify(value));
        expect({ status: answer.status, code: answer.code }).toEqual({ status: 400, code: 'ARG-001' });
      }),
      fuzzRuns(100),
    );
  });
});

describe('a body nested ten thousand levels deep or more', () => {
  it('is refused whole, or in any field, without overflowing a stack', async () => {
    await fc.assert(
      fc.asyncProperty(anOperation(), deepJsonText(), fc.boolean(), async (operation, deep, inField) => {
        const [field = '', ...others] = Object.keys(operation.body);
        const rest = others
          .map((key) => `,${JSON.stringify(key)}:${JSON.stringify(operation.body[key])}`)
          .join('');
        const json = inField ? `{${JSON.stringify(field)}:${deep}${rest}}` : deep;
        const answer = await send(operation, json);
        const policy = inField && operation.untyped?.includes(field);
        expect({ status: answer.status, code: answer.code }).toEqual({
          status: 400,
          code: policy ? 'SVC-002' : 'ARG-001',
        });
      }),
      fuzzRuns(24),
    );
  });
});

describe('a URL field', () => {
  it('is stored exactly as sent, line breaks and all, or refused with ARG-001: never changed on the way', async () => {
    await fc.assert(
      fc.asyncProperty(hostileUrl(), async (url) => {
        const body = { name: `Url ${randomUUID()}`, icon: url, callback_url: url };
        const created = await send(operationAt('/organization/v3/services'), JSON.stringify(body));
        const id = (created.json as { id?: string } | undefined)?.id;
        const listed =
          id === undefined
            ? undefined
            : await send(
                operationAt('/organization/v3/services/list'),
                JSON.stringify({ service_ids: [id] }),
              );
        const shown = (listed?.json as { icon: string; callback_url: string }[] | undefined)?.[0];
        const seen = shown
          ? { status: created.status, icon: shown.icon, callback_url: shown.callback_url }
          : outcome(created);
        expect(seen).toEqual(
          expect.toBeOneOf([
            { status: 201, icon: url, callback_url: url },
            { status: 400, code: 'ARG-001' },
          ]),
        );
      }),
      fuzzRuns(40),
    );
  });
});

describe('an error caused by a large value', () => {
  const huge = 'x'.repeat(1_000_000);
  const prefix = 'x'.repeat(40);

  it.each([
    [
      'as a field of the wrong type',
      { directory_ids: huge },
      `directory_ids: Invalid type: Expected Array but received "${prefix}…"`,
    ],
    [
      'as an unknown key',
      { directory_ids: [], [huge]: 1 },
      `["${prefix}…"]: Invalid key: Expected never but received "${prefix}…"`,
    ],
    ['as an item of a list', { directory_ids: [huge] }, 'directory_ids.0: must be a UUID'],
  ])('repeats at most a short prefix of it, %s', async (_, body, detail) => {
    const answer = await send(operationAt('/organization/v3/directories/list'), JSON.stringify(body));
    expect({ status: answer.status, code: answer.code, detail: answer.detail }).toEqual({
      status: 400,
      code: 'ARG-001',
      detail,
    });
  });
});
