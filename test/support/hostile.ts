import fc from 'fast-check';

/**
 * fast-check settings for the fuzz suite. Runs are deterministic by default so CI is reproducible; `FUZZ_SEED=<n>`
 * replays a reported seed, `FUZZ_SEED=random` draws a new one per run, and `FUZZ_SCALE=<k>` multiplies every run count
 * for a longer session. fast-check names the seed and the shrunk counterexample when a property fails.
 */
const defaultSeed = 20_260_707;

function seedFromEnvironment(): number {
  const configured = process.env.FUZZ_SEED;
  if (!configured) return defaultSeed;
  if (configured === 'random') return Math.floor(Math.random() * 0x7fffffff);
  const seed = Number(configured);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or "random", not ${configured}`);
  return seed;
}

export const fuzzSeed = seedFromEnvironment();
const scale = Number(process.env.FUZZ_SCALE ?? '1') || 1;

/** Parameters for one property: the suite's seed and `numRuns` scaled by FUZZ_SCALE. */
export function fuzzRuns(numRuns: number): { seed: number; numRuns: number; endOnFailure: boolean } {
  // endOnFailure: every run is a request to a live store; shrinking a failure is kept, re-running the rest is not.
  return { seed: fuzzSeed, numRuns: Math.max(1, Math.round(numRuns * scale)), endOnFailure: true };
}

/** Characters that break naive parsers, log lines, terminals and HTTP framing. */
export const hostileCharacters = [
  '\u0000', // NUL
  '\u0007',
  '\u0008',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u001b[31m', // ANSI escape
  '\u007f',
  '\u0085', // NEL
  '\u00a0', // no-break space
  '\u200b', // zero-width space
  '\u200c',
  '\u200d',
  '\u200e', // LRM
  '\u200f', // RLM
  '\u202a',
  '\u202e', // RTL override
  '\u2066',
  '\u2069',
  '\u2028', // line separator
  '\u2029',
  '\ufeff', // BOM
  '\ufffd',
  '\uffff',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\udc00\ud800', // reversed pair
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301', // combining accent
  '\u0301',
  'ﷺ', // NFKC expands it to 18 characters
  '㍿',
  'Ａ', // full width
  'İ', // lower-cases to two code points
  'ß',
  'ǅ',
  'ה',
  'مرحبا',
  '中文',
  '%00',
  '%2e%2e%2f',
  '%252e',
  '../',
  '..\\',
  '/',
  '#',
  '?',
  '&',
  '=',
  ';',
  '"',
  "'",
  '`',
  '<script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '\\u0000',
  '__proto__',
  'constructor',
  'USER#',
  'KEY#',
  ' ',
] as const;

/** Text built from hostile characters and ordinary ones; `maxLength` counts pieces, not code units. */
export function hostileText(options: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...hostileCharacters) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom('a', 'Z', '0', '-', '_', '.') },
  );
  return fc
    .array(piece, { minLength: options.minLength ?? 0, maxLength: options.maxLength ?? 12 })
    .map((pieces) => pieces.join(''));
}

/** A string at or around a length limit, made of one repeated (possibly multi-unit, possibly expanding) piece. */
export function longText(limits: readonly number[]): fc.Arbitrary<string> {
  return fc
    .record({
      piece: fc.constantFrom('a', ' ', 'ﷺ', '😀', '中', '\u200b', '\u0000', 'é', 'e\u0301', '\ud800'),
      target: fc.constantFrom(...limits),
      delta: fc.integer({ min: -1, max: 1 }),
    })
    .map(({ piece, target, delta }) => piece.repeat(Math.max(0, Math.ceil((target + delta) / piece.length))));
}

/** Anything JSON can carry, weighted towards the shapes that trip validators. */
export function hostileJson(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 2, arbitrary: hostileText() },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        null,
        true,
        0,
        -0,
        -1,
        1.5,
        1e308,
        -1e308,
        Number.MAX_SAFE_INTEGER + 2,
        '',
        ' ',
        '0',
        'null',
        'true',
        [],
        {},
        [null],
      ),
    },
    { weight: 1, arbitrary: deepJson() },
    { weight: 1, arbitrary: wideJson() },
  );
}

/** Arrays or objects nested a hundred or a thousand levels deep (JSON.stringify can still print them). */
export function deepJson(): fc.Arbitrary<unknown> {
  return fc
    .record({ depth: fc.constantFrom(100, 1_000), kind: fc.constantFrom('array', 'object', 'mixed') })
    .map(({ depth, kind }) => {
      let value: unknown = 'bottom';
      for (let level = 0; level < depth; level++) {
        const asArray = kind === 'array' || (kind === 'mixed' && level % 2 === 0);
        value = asArray ? [value] : { a: value };
      }
      return value;
    });
}

/**
 * JSON text nested 10 000 or more levels deep, written as text: JSON.stringify would overflow the test's own stack
 * printing it, but a client can send it.
 */
export function deepJsonText(): fc.Arbitrary<string> {
  return fc
    .record({ depth: fc.constantFrom(10_000, 100_000), open: fc.constantFrom('[', '{"a":', '{"__proto__":') })
    .map(({ depth, open }) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);
}

/** A huge array or string. */
export function wideJson(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(1_000, 100_000).map((length) => Array.from({ length }, (_, index) => index)),
    fc.constantFrom(1_000, 100_000).map((length) => Array.from({ length }, () => 'x')),
    fc.constantFrom(10_000, 1_000_000).map((length) => 'x'.repeat(length)),
  );
}

/** Keys that would pollute a prototype or shadow a method if a parser copied them naively. */
export const pollutingKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
] as const;

/**
 * A JSON object text with a polluting key; written as text because an object literal's `__proto__` would set the
 * prototype instead of making a key.
 */
export function pollutingMember(): fc.Arbitrary<string> {
  return fc
    .record({ key: fc.constantFrom(...pollutingKeys), value: fc.jsonValue({ maxDepth: 2 }) })
    .map(({ key, value }) => `${JSON.stringify(key)}:${JSON.stringify({ polluted: true, value })}`);
}

/** Path segments that try to escape, truncate or inject into a key. */
export function hostileId(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '..',
      '../',
      '../../etc/passwd',
      '..%2f..%2f',
      '%2e%2e',
      '%2e%2e%2f',
      '%252e%252e',
      '%00',
      'a%00b',
      '%0d%0aX-Injected:%201',
      '%ff',
      '%e0%a4%a',
      '%',
      '%zz',
      'AUTH#x',
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
      '6ba7b810-9dad-11d1-80b4-00c04fd430c8x',
      ' 6ba7b810-9dad-11d1-80b4-00c04fd430c8',
      '{auth_request}',
      '*',
      "' OR '1'='1",
      '$where',
    ),
    fc.uuid().map((id) => id.toUpperCase()),
    fc.constantFrom(100, 1_024, 2_048, 4_096).map((length) => 'a'.repeat(length)),
    fc.constantFrom(700, 2_000).map((length) => '中'.repeat(length)),
    hostileText({ minLength: 1 }),
  );
}

/** URLs a service might be asked to store: schemes, credentials, IP literals, header injection. */
export function hostileUrl(): fc.Arbitrary<string> {
  const hosts = [
    'example.com',
    'EXAMPLE.com.',
    '127.0.0.1',
    '169.254.169.254',
    '[::1]',
    '[::ffff:127.0.0.1]',
    '0x7f.1',
    '2130706433',
    'user:pass@example.com',
    'user@example.com',
    'xn--nxasmq6b.com',
    'ουτοπία.δπθ.gr',
    'localhost',
    'example.com:0',
    'example.com:65536',
  ];
  const schemes = ['https://', 'http://', 'HTTPS://', 'javascript:', 'data:', 'file://', 'ftp://', '//', ''];
  const suffixes = [
    '',
    '/',
    '/hook',
    '/a b',
    '/\r\nX-Injected: 1',
    '\r\n\r\nGET / HTTP/1.1',
    '/%0d%0aSet-Cookie:%20a=b',
    '/\u0000',
    '/\t',
    '#frag',
    '?q=1&r=<script>',
    '/\u202e',
    ' ',
  ];
  return fc.oneof(
    fc
      .record({
        scheme: fc.constantFrom(...schemes),
        host: fc.constantFrom(...hosts),
        suffix: fc.constantFrom(...suffixes),
        lead: fc.constantFrom('', ' ', '\t', '\n', '\u0000'),
      })
      .map(({ scheme, host, suffix, lead }) => `${lead}${scheme}${host}${suffix}`),
    fc.constantFrom(
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'java\nscript:alert(1)',
      'https:',
      'https://',
    ),
    fc
      .constantFrom(2_040, 2_048, 2_049, 10_000)
      .map((length) => `https://example.com/${'a'.repeat(length - 20)}`),
    fc.webUrl(),
  );
}

/**
 * Text as a client puts it in a path segment or a query value: UTF-8, every byte but the unreserved ones as %XX. Unlike
 * encodeURIComponent it never throws: a lone surrogate goes as U+FFFD, as Node would send it.
 */
export function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}
