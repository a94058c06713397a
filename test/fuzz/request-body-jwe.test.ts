import fc from 'fast-check';
import { CompactEncrypt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '#shared/protocol/content-hash';
import type { FuzzTarget, RawRequest } from '#test/support/fuzz-harness';
import { startFuzzTarget } from '#test/support/fuzz-harness';
import { fuzzRuns, hostileJson, hostileText } from '#test/support/hostile';

/**
 * The JWE around a request body: changed after encryption, made with headers the API does not accept, not a JWE at
 * all, or not the body the request JWT describes. The JWT is always valid for the bytes sent (unless a case says
 * otherwise), so every refusal here is the body's: ARG-001 for what it is, AUTH-005 for what the JWT says of it.
 */
let target: FuzzTarget;

beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(async () => {
  await target?.stop();
});

/** An operation that answers 200 and an empty list for this body. */
const path = '/organization/v3/directories/list';
const validJson = JSON.stringify({ directory_ids: [] });

async function run(request: RawRequest) {
  return target.check(request, await target.invoke(request));
}

/** The answer to a request signed for exactly these body bytes. */
async function sendBody(body: string | Buffer, request: Record<string, unknown> = {}) {
  return run(await target.sign({ method: 'POST', target: path, rawBody: body, request }));
}

const outcome = (answer: { status: number; code?: string }) => ({ status: answer.status, code: answer.code });
const bodyRefused = { status: 400, code: 'ARG-001' };

describe('a valid JWE', () => {
  it.each([
    ['RSA-OAEP', {}],
    ['RSA-OAEP-256', { alg: 'RSA-OAEP-256' }],
    ['with no kid (the current key)', { kid: undefined }],
    ['with the Java SDK’s cty', { cty: 'application/json' }],
  ])('is accepted: %s', async (_, header) => {
    const answer = await sendBody(await target.encrypt(validJson, header));
    expect({ status: answer.status, json: answer.json }).toEqual({ status: 200, json: [] });
  });
});

describe('a JWE changed after it was made', () => {
  const change = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), segment: fc.integer({ min: 0, max: 4 }), bit: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    fc.record({
      kind: fc.constant('segments' as const),
      how: fc.constantFrom(
        'drop-last',
        'drop-key',
        'extra',
        'swap-iv-tag',
        'empty-tag',
        'empty-ciphertext',
        'double',
      ),
    }),
  );

  it('is refused with ARG-001: a bit flipped in any segment, a truncation, segments moved', async () => {
    await fc.assert(
      fc.asyncProperty(change, async (mutation) => {
        const jwe = await target.encrypt(validJson);
        const parts = jwe.split('.') as [string, string, string, string, string];
        let changed: string;
        if (mutation.kind === 'flip') {
          // Flip a bit of the decoded bytes, so that the bytes always differ (base64 has slack in its last character).
          const bytes = Buffer.from(parts[mutation.segment] as string, 'base64url');
          const bit = mutation.bit % (bytes.length * 8);
          bytes[bit >> 3] = (bytes[bit >> 3] as number) ^ (1 << (bit & 7));
          changed = parts
            .map((part, index) => (index === mutation.segment ? bytes.toString('base64url') : part))
            .join('.');
        } else if (mutation.kind === 'truncate') {
          changed = jwe.slice(0, mutation.at % jwe.length);
        } else {
          const [header, key, iv, ciphertext, tag] = parts;
          changed = {
            'drop-last': [header, key, iv, ciphertext],
            'drop-key': [header, iv, ciphertext, tag],
            extra: [...parts, tag],
            'swap-iv-tag': [header, key, tag, ciphertext, iv],
            'empty-tag': [header, key, iv, ciphertext, ''],
            'empty-ciphertext': [header, key, iv, '', tag],
            double: [...parts, ...parts],
          }[mutation.how].join('.');
        }
        const answer = await sendBody(changed);
        expect(outcome(answer)).toEqual(bodyRefused);
      }),
      fuzzRuns(150),
    );
  });
});

describe('a JWE made with a header the API does not accept', () => {
  const accepted = (header: Record<string, unknown>) =>
    ['RSA-OAEP', 'RSA-OAEP-256'].includes(header.alg as string) &&
    header.enc === 'A256CBC-HS512' &&
    (header.kid === undefined || header.kid === target.apiKey.kid) &&
    !('crit' in header);

  const headerChange = fc.oneof(
    fc.record(
      {
        alg: fc.constantFrom('RSA-OAEP', 'RSA-OAEP-256', 'RSA-OAEP-384', 'RSA-OAEP-512'),
        enc: fc.constantFrom('A256CBC-HS512', 'A128CBC-HS256', 'A192CBC-HS384', 'A128GCM', 'A256GCM'),
        kid: fc.oneof(
          fc.constant(undefined),
          fc.constant('api'),
          fc.constantFrom('', '00:11', 'x'.repeat(10_000), '../../etc/passwd'),
          hostileText({ minLength: 1, maxLength: 6 }),
        ),
        zip: fc.constant('DEF'),
        crit: fc.constant(['exp']),
        cty: fc.constantFrom('application/json', 'JWT', 'text/plain'),
      },
      { requiredKeys: ['alg', 'enc', 'kid'] },
    ),
  );

  it('is refused with ARG-001 unless it is RSA-OAEP(-256) with A256CBC-HS512 to the API’s key', async () => {
    await fc.assert(
      fc.asyncProperty(headerChange, async (change) => {
        const header = { ...change, kid: change.kid === 'api' ? target.apiKey.kid : change.kid };
        // jose makes what it can; a header it will not encrypt with is spliced onto a valid JWE instead.
        const jwe = await new CompactEncrypt(new TextEncoder().encode(validJson))
          .setProtectedHeader(withoutUndefined(header) as { alg: string; enc: string })
          .encrypt(target.apiKey.publicKey)
          .catch(async () => splice(await target.encrypt(validJson), withoutUndefined(header)));
        const answer = await sendBody(jwe);
        expect(outcome(answer)).toEqual(accepted(header) ? { status: 200 } : bodyRefused);
      }),
      fuzzRuns(120),
    );
  });

  it.each([
    ['kid', { kid: 'k'.repeat(10_240) }],
    ['alg', { alg: 'a'.repeat(10_240) }],
    ['enc', { enc: 'e'.repeat(10_240) }],
  ])('is refused in a few words when its %s is 10 KB long', async (_, header) => {
    const jwe = splice(await target.encrypt(validJson), { alg: 'RSA-OAEP', enc: 'A256CBC-HS512', ...header });
    const answer = await sendBody(jwe);
    expect({ ...outcome(answer), short: String(answer.detail).length < 300 }).toEqual({
      ...bodyRefused,
      short: true,
    });
  });

  it('is accepted compressed (zip DEF), and refused with ARG-001 when it inflates past jose’s 250 KB', async () => {
    const padded = (size: number) => validJson.padEnd(size, ' ');
    const small = await sendBody(await target.encrypt(padded(100_000), { zip: 'DEF' }));
    const bomb = await sendBody(await target.encrypt(padded(10_000_000), { zip: 'DEF' }));
    expect([outcome(small), outcome(bomb)]).toEqual([{ status: 200 }, bodyRefused]);
  });

  it('is refused with ARG-001 when its header is any JSON, or no JSON', async () => {
    const header = fc.oneof(
      hostileJson().map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
      fc
        .constantFrom(
          { alg: 'none', enc: 'A256CBC-HS512' },
          { alg: 'dir', enc: 'A256CBC-HS512' },
          { alg: 'RSA1_5', enc: 'A256CBC-HS512' },
          { alg: 'A256KW', enc: 'A256CBC-HS512' },
          { alg: 'ECDH-ES', enc: 'A256CBC-HS512' },
          { alg: 'PBES2-HS256+A128KW', enc: 'A256CBC-HS512', p2c: 1e9, p2s: 'AAAA' },
          { alg: ['RSA-OAEP'], enc: 'A256CBC-HS512' },
          { alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: 7 },
          { alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: { $ne: null } },
          { alg: 'RSA-OAEP', enc: null },
        )
        .map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
      hostileText({ maxLength: 20 }),
    );
    await fc.assert(
      fc.asyncProperty(header, async (segment) => {
        const parts = (await target.encrypt(validJson)).split('.');
        const answer = await sendBody([segment, ...parts.slice(1)].join('.'));
        expect(outcome(answer)).toEqual(bodyRefused);
      }),
      fuzzRuns(80),
    );
  });
});

describe('a body that is not a JWE', () => {
  it('is refused with ARG-001: text, JSON, a JWS, binary', async () => {
    const body = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
      hostileText({ minLength: 1 }),
      hostileJson().map((value) => JSON.stringify(value) ?? 'null'),
      fc.constantFrom(
        validJson,
        'a.b.c.d.e',
        '....',
        '.....',
        'e30.e30.e30.e30.e30',
        'eyJhbGciOiJSUzI1NiJ9.e30.AAAA',
        '{"protected":"e30","ciphertext":"AAAA"}',
      ),
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        expect(outcome(await sendBody(sent))).toEqual(bodyRefused);
      }),
      fuzzRuns(120),
    );
  });

  it('is refused with ARG-001 when what it holds is not a JSON object', async () => {
    const content = fc.oneof(
      fc.constantFrom(
        '',
        'not json',
        '{"directory_ids": [',
        '[]',
        '"text"',
        '7',
        'null',
        'true',
        '{"a":1}{"b":2}',
      ),
      hostileText({ minLength: 1 }).filter((text) => !text.trim().startsWith('{')),
    );
    await fc.assert(
      fc.asyncProperty(content, async (text) => {
        expect(outcome(await sendBody(await target.encrypt(text)))).toEqual(bodyRefused);
      }),
      fuzzRuns(60),
    );
  });

  it('is refused with ARG-001 when what it holds is not UTF-8', async () => {
    for (const bytes of [
      [0xff],
      [0x7b, 0xc3, 0x28, 0x7d],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ]) {
      const jwe = await new CompactEncrypt(Uint8Array.from(bytes))
        .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: target.apiKey.kid })
        .encrypt(target.apiKey.publicKey);
      expect(outcome(await sendBody(jwe))).toEqual(bodyRefused);
    }
  });
});

describe('a body the request JWT does not describe', () => {
  it('is refused with AUTH-005: another body’s hash, a wrong or missing hash function, no hash at all', async () => {
    const claim = fc.oneof(
      fc.constant({ hash: undefined, func: undefined }),
      fc.constant({ func: undefined }),
      fc.constantFrom('S384', 'S512', 'S1', 's256', '', 'SHA256').map((func) => ({ func })),
      hostileText({ maxLength: 4 }).map((text) => ({ hash: contentHash('S256', `${text}x`) })),
      fc.constantFrom<unknown>('', 7, null, [], 'x'.repeat(10_000)).map((hash) => ({ hash })),
    );
    await fc.assert(
      fc.asyncProperty(claim, async (request) => {
        const answer = await sendBody(await target.encrypt(validJson), request);
        expect(outcome(answer)).toEqual({ status: 401, code: 'AUTH-005' });
      }),
      fuzzRuns(60),
    );
  });

  it('is refused with AUTH-005 when the body was changed after signing, even into another valid JWE', async () => {
    const signed = await target.sign({ method: 'POST', target: path, json: validJson });
    for (const body of [
      await target.encrypt(validJson),
      `${String(signed.body)} `,
      String(signed.body).slice(1),
    ]) {
      expect(outcome(await run({ ...signed, body }))).toEqual({ status: 401, code: 'AUTH-005' });
    }
  });

  it('is refused when an operation that takes a body gets none, or one that takes none gets one', async () => {
    const none = await run(await target.sign({ method: 'POST', target: path }));
    const extra = await run(
      await target.sign({ method: 'GET', target: '/organization/v3/directories', json: validJson }),
    );
    expect([outcome(none), outcome(extra)]).toEqual([bodyRefused, bodyRefused]);
  });
});

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined));
}

/** A valid JWE with its protected header replaced: its tag no longer covers the header. */
function splice(jwe: string, header: Record<string, unknown>): string {
  const [, ...rest] = jwe.split('.');
  return [Buffer.from(JSON.stringify(header)).toString('base64url'), ...rest].join('.');
}
