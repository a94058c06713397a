import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayTextProblem, isWellFormedText } from '#shared/domain/display-text';
import { nameKey } from '#shared/domain/names';
import { type FuzzTarget, startFuzzTarget } from '#test/support/fuzz-harness';
import { fuzzRuns, hostileText, longText } from '#test/support/hostile';

/**
 * Directory and service names made of emoji, right-to-left text, NUL and other controls, lone surrogates, characters
 * that NFKC expands eighteen-fold, and lengths around the limit. A name is either refused with the code its problem
 * calls for (ill-formed Unicode, or characters that hide on a device prompt, are ARG-001) or stored and shown back
 * exactly as sent, trimmed; names that compare equal (case, spacing, NFKC) collide.
 */
let target: FuzzTarget;

beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => {
  await target?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const request = await target.sign({
    method,
    target: path,
    ...(body === undefined ? {} : { json: JSON.stringify(body) }),
  });
  return target.check(request, await target.invoke(request));
}

const names = fc.oneof(
  hostileText({ minLength: 1, maxLength: 16 }),
  longText([1, 200]),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
);

/** What creating a name must answer, given the comparison forms already taken. */
function expected(name: string, taken: ReadonlySet<string>, takenCode: string) {
  const shown = name.trim();
  if (!isWellFormedText(name) || displayTextProblem(shown) !== undefined)
    return { status: 400, code: 'ARG-001' };
  if (shown.length === 0 || shown.length > 200) return { status: 400, code: 'ARG-001' };
  if (taken.has(nameKey(shown))) return { status: 400, code: takenCode };
  return { status: 201, shown };
}

describe('a directory name', () => {
  it.each([
    ['of 200 U+FDFA, 3 600 characters once NFKC-normalised for comparison', 'ﷺ'.repeat(200)],
    ['of 200 U+337F, 800 characters once normalised', '㍿'.repeat(200)],
    ['with emoji and right-to-left script', '👩 Family שלום'],
  ])('is stored and shown back: one %s', async (_, name) => {
    const created = await call('POST', '/organization/v3/directories', { name });
    const id = (created.json as { id: string }).id;
    const listed = await call('POST', '/organization/v3/directories/list', { directory_ids: [id] });
    expect({ status: created.status, shown: (listed.json as { name: string }[])[0]?.name }).toEqual({
      status: 201,
      shown: name,
    });
  });

  it.each([
    ['an emoji sequence joined by zero-width joiners', '👩‍👩‍👧‍👦 Family'],
    ['a right-to-left override', 'invoice\u202Efdp.exe'],
    ['NUL and other controls', 'a\u0000b\u0007c'],
    ['a lone surrogate', 'a\ud800b'],
  ])('is refused with ARG-001: one with %s', async (_, name) => {
    const created = await call('POST', '/organization/v3/directories', { name });
    expect({ status: created.status, code: created.code }).toEqual({ status: 400, code: 'ARG-001' });
  });

  it('is refused, taken, or shown back exactly as sent and trimmed', async () => {
    const taken = new Set<string>();
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const created = await call('POST', '/organization/v3/directories', { name });
        const id = (created.json as { id?: string } | undefined)?.id;
        const listed =
          id === undefined
            ? undefined
            : await call('POST', '/organization/v3/directories/list', { directory_ids: [id] });
        const shown = (listed?.json as { name: string }[] | undefined)?.[0]?.name;
        const want = expected(name, taken, 'ORG-003');
        if (created.status === 201) taken.add(nameKey(name.trim()));
        expect({ status: created.status, code: created.code, shown }).toEqual(want);
      }),
      fuzzRuns(60),
    );
  });
});

describe('a service name', () => {
  it('is refused, taken across the organization’s services, or shown back exactly as sent and trimmed', async () => {
    const taken = new Set<string>();
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const created = await call('POST', '/organization/v3/services', { name });
        const id = (created.json as { id?: string } | undefined)?.id;
        const listed =
          id === undefined
            ? undefined
            : await call('POST', '/organization/v3/services/list', { service_ids: [id] });
        const shown = (listed?.json as { name: string }[] | undefined)?.[0]?.name;
        const want = expected(name, taken, 'SVC-001');
        if (created.status === 201) taken.add(nameKey(name.trim()));
        expect({ status: created.status, code: created.code, shown }).toEqual(want);
      }),
      fuzzRuns(60),
    );
  });

  it('collides with one that differs only in case, spacing or compatibility form', async () => {
    const base = `Fuzz ${Date.now()} ﬁle`;
    const first = await call('POST', '/organization/v3/services', { name: base });
    const variants = [base.toUpperCase(), ` ${base.replace(/ /g, '\u00a0 ')} `, base.replace('ﬁ', 'fi')];
    const others = [];
    for (const name of variants)
      others.push((await call('POST', '/organization/v3/services', { name })).code);
    expect({ first: first.status, others }).toEqual({
      first: 201,
      others: ['SVC-001', 'SVC-001', 'SVC-001'],
    });
  });
});
