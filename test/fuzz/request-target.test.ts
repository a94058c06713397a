import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FuzzTarget, type RawRequest, startFuzzTarget } from '#test/support/fuzz-harness';
import { fuzzRuns, hostileId, hostileText, percentEncoded } from '#test/support/hostile';

/**
 * The request target: ids in paths that try to escape, inject or overflow a store key, dot segments and their
 * encodings, 10 KB segments, and queries with line breaks. An id names nothing it should not, a path reaches no
 * operation but its own, and no answer carries a line break into a header.
 */
let target: FuzzTarget;
let service: string;

beforeAll(async () => {
  target = await startFuzzTarget();
  const created = await run(
    await target.sign({
      method: 'POST',
      target: '/organization/v3/services',
      json: JSON.stringify({ name: `Targets ${randomUUID()}` }),
    }),
  );
  service = `svc:${(created.json as { id: string }).id}`;
});
afterAll(async () => {
  await target?.stop();
});

async function run(request: RawRequest) {
  return target.check(request, await target.invoke(request));
}

/** Over HTTP through the local runtime, which decodes path parameters as API Gateway does. */
async function runOverHttp(request: RawRequest) {
  return target.check(request, await target.send(request));
}

const outcome = (answer: { status: number; code?: string }) => ({ status: answer.status, code: answer.code });
const unknownRequest = [{ status: 204 }, { status: 404, code: 'HTTP-404' }];

/** GET and DELETE of /service/v3/auths/{segment}, signed for the service. */
async function getAndCancel(segment: string, send = run) {
  const path = `/service/v3/auths/${segment}`;
  const read = await send(await target.sign({ method: 'GET', target: path, subject: service }));
  const cancel = await send(await target.sign({ method: 'DELETE', target: path, subject: service }));
  return [outcome(read), outcome(cancel)];
}

describe('an authorization request id in the path', () => {
  it('names an unknown request whatever it holds: 204 to read, 404 to cancel', async () => {
    await fc.assert(
      fc.asyncProperty(hostileId(), async (id) => {
        expect(await getAndCancel(percentEncoded(id))).toEqual(unknownRequest);
      }),
      fuzzRuns(80),
    );
  });

  it('names an unknown request when sent unencoded, escapes and all', async () => {
    const raw = hostileId().filter((id) => id.length > 0 && !/[/?#\s]/.test(id));
    await fc.assert(
      fc.asyncProperty(raw, async (id) => {
        expect(await getAndCancel(id)).toEqual(unknownRequest);
      }),
      fuzzRuns(60),
    );
  });

  it('names an unknown request when it is 10 KB long', async () => {
    expect(await getAndCancel('a'.repeat(10_240))).toEqual(unknownRequest);
  });

  it.each([
    ['a traversal, encoded', '..%2F..%2Forganization%2Fv3%2Fdirectories'],
    ['a double-encoded traversal', '%252e%252e%252f'],
    ['a malformed escape', '%zz'],
    ['a truncated escape', '%e0%a4%a'],
    ['a lone percent sign', '%'],
    ['an encoded NUL', 'a%00b'],
    ['an encoded CRLF', '%0d%0aX-Injected:%201'],
  ])('names an unknown request over HTTP too: %s', async (_, segment) => {
    expect(await getAndCancel(segment, runOverHttp)).toEqual(unknownRequest);
  });
});

describe('a public path parameter', () => {
  it('names no key and no linking code, whatever it holds', async () => {
    await fc.assert(
      fc.asyncProperty(hostileId(), fc.constantFrom('public-key', 'qrcodes'), async (id, kind) => {
        const request = { method: 'GET', target: `/public/v3/${kind}/${percentEncoded(id)}`, headers: {} };
        expect(outcome(await run(request))).toEqual({ status: 404, code: 'HTTP-404' });
      }),
      fuzzRuns(60),
    );
  });
});

describe('a path with dot segments, doubled slashes or encoded letters', () => {
  it.each([
    ['/organization/v3/../v3/directories', 'ARG-002'],
    ['/organization/v3/./directories', 'ARG-002'],
    ['/organization/v3//directories', 'ARG-002'],
    ['/organization/v3/directories/', 'ARG-002'],
    ['/organization/v3/directories/.', 'ARG-002'],
    ['/organization/v3/%64irectories', 'ARG-002'],
    ['/organization/v3/directories%2F..', 'ARG-002'],
    ['/ORGANIZATION/v3/directories', 'HTTP-404'],
    ['/public/v3/../../organization/v3/directories', 'HTTP-404'],
    ['/public/v3/public-key/../../v3/ping', 'HTTP-404'],
  ])('reaches no other operation: %s is %s, in-process and over HTTP', async (path, code) => {
    const answers = [
      outcome(await run(await target.sign({ method: 'GET', target: path }))),
      outcome(await runOverHttp(await target.sign({ method: 'GET', target: path }))),
    ];
    const status = code === 'ARG-002' ? 400 : 404;
    expect(answers).toEqual([
      { status, code },
      { status, code },
    ]);
  });

  it('reaches no operation when the path is 10 KB, and the error says so in a few words', async () => {
    const long = `/organization/v3/${'d'.repeat(10_240)}`;
    const answers = [
      await run(await target.sign({ method: 'GET', target: long })),
      await run({ method: 'GET', target: `/public/${'p'.repeat(10_240)}`, headers: {} }),
    ];
    expect(
      answers.map((answer) => ({ ...outcome(answer), short: String(answer.detail).length < 120 })),
    ).toEqual([
      { status: 400, code: 'ARG-002', short: true },
      { status: 404, code: 'HTTP-404', short: true },
    ]);
  });
});

describe('a query string', () => {
  const query = fc
    .array(fc.tuple(hostileText({ maxLength: 6 }), hostileText({ maxLength: 10 })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

  it('that the JWT binds is ignored by an operation that reads none, line breaks and all', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (text) => {
        const answer = await run(
          await target.sign({ method: 'GET', target: `/organization/v3/directories?${text}` }),
        );
        expect({ ...outcome(answer), cookie: answer.headers['set-cookie'] }).toEqual({ status: 200 });
      }),
      fuzzRuns(60),
    );
  });

  it('that the JWT does not bind is refused with AUTH-005', async () => {
    await fc.assert(
      fc.asyncProperty(query, async (text) => {
        const signed = await target.sign({ method: 'GET', target: '/organization/v3/directories' });
        expect(outcome(await run({ ...signed, target: `${signed.target}?${text}` }))).toEqual({
          status: 401,
          code: 'AUTH-005',
        });
      }),
      fuzzRuns(30),
    );
  });

  it('with encoded line breaks is ignored over HTTP, and no header of the answer breaks', async () => {
    for (const text of ['x=%0d%0aSet-Cookie:%20a%3Db', 'x=%0aX-Injected:%201', 'x=%E2%80%A8']) {
      const answers = [
        await runOverHttp(
          await target.sign({ method: 'GET', target: `/organization/v3/directories?${text}` }),
        ),
        await runOverHttp({ method: 'GET', target: `/public/v3/ping?${text}`, headers: {} }),
      ];
      expect(
        answers.map((answer) => ({ status: answer.status, cookie: answer.headers['set-cookie'] })),
      ).toEqual([{ status: 200 }, { status: 200 }]);
    }
  });

  it('with raw line breaks only splits the request line: the answer sets no cookie, and the runtime serves on', async () => {
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(target.runtime.baseUrl).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
      });
      socket.on('close', () => resolve(received.split('\r\n\r\n')[0] ?? ''));
      socket.on('error', reject);
      socket.end(
        'GET /public/v3/ping?x=\r\nSet-Cookie: a=b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      );
    });
    const next = await runOverHttp({ method: 'GET', target: '/public/v3/ping', headers: {} });
    expect({
      answered: /^HTTP\/1\.1 [24]\d\d /.test(head),
      cookie: /\r\nset-cookie:/i.test(head),
      next: next.status,
    }).toEqual({ answered: true, cookie: false, next: 200 });
  });
});

describe('the legacy poll’s query', () => {
  const values = fc.record({
    auth_request: hostileId(),
    app_key: fc.oneof(hostileId(), fc.constantFrom('1234567890', '0', '9'.repeat(30))),
    secret_key: hostileText({ maxLength: 12 }),
    signature: hostileText({ maxLength: 12 }),
  });

  it.each([
    ['of letters', 'a'.repeat(10_240)],
    ['of digits', '9'.repeat(10_240)],
  ])('is refused as bad credentials when the app key is 10 KB %s', async (_, appKey) => {
    const query = `auth_request=${randomUUID()}&app_key=${appKey}&secret_key=x&signature=y`;
    const answer = await run({ method: 'GET', target: `/v1/poll?${query}`, headers: {} });
    expect(outcome(answer)).toEqual({ status: 401, code: '70401' });
  });

  it('is refused in the v1 envelope: 400 when a value is missing, 401 when the credentials are not a service’s', async () => {
    await fc.assert(
      fc.asyncProperty(values, async (query) => {
        const text = Object.entries(query)
          .map(([name, value]) => `${name}=${percentEncoded(value)}`)
          .join('&');
        const answer = await run({ method: 'GET', target: `/v1/poll?${text}`, headers: {} });
        const complete = Object.values(query).every((value) => value.length > 0);
        expect(outcome(answer)).toEqual({ status: complete ? 401 : 400, code: '70401' });
      }),
      fuzzRuns(60),
    );
  });
});
