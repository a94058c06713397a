import { request } from 'node:http';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { linkAuthenticator } from '#shared/authenticator/authenticator';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { linkProblem } from '#web/authenticator/words';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

/**
 * Guessing at linking codes (docs/protocol.md#linking): failed links are counted per address, per directory (with its
 * SDK keys) and per code, and the QR endpoint answers every well-formed code alike. The runtime listens on 127.0.0.1
 * and the whole 127.0.0.0/8 reaches it, so each test speaks from addresses of its own.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let other: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  [scene, other] = await Promise.all([newAuthScene(runtime), newAuthScene(runtime)]);
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await runtime?.stop();
});

/** The service runs in this process: a test starts just after a window of the counters begins, whenever it runs. */
function startOfWindow(windowSeconds = 600): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  const now = Math.floor(Date.now() / 1000);
  vi.setSystemTime((now - (now % windowSeconds) + windowSeconds + 1) * 1000);
}

async function startLink(identifier: string): Promise<string> {
  const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
    subject: `dir:${scene.directoryId}`,
    body: { identifier },
  });
  return (started.body as { code: string }).code;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** A request from a loopback address of the test's choosing. */
function send(from: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const url = new URL(path, runtime.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        localAddress: from,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          }),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const publicKey = rsaKeyPair().publicPem;

/** A link attempt from `from`: its status and error code. */
async function link(from: string, code: string, sdkKey?: string) {
  const answer = await send(from, 'POST', '/device/v3/link', {
    ...(sdkKey ? { sdk_key: sdkKey } : {}),
    code,
    public_key: publicKey,
  });
  const body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  return { status: answer.status, code: body.error_code, body, retryAfter: answer.headers['retry-after'] };
}

/** Well-formed codes no link has: the service never draws a 0. */
let unknownCodes = 0;
const unknownCode = () => `ZZ0${String(unknownCodes++).padStart(5, '0')}`;

async function failures(from: string, count: number, sdkKey?: string): Promise<void> {
  const outcomes = [];
  for (let sent = 0; sent < count; sent++) outcomes.push((await link(from, unknownCode(), sdkKey)).status);
  expect(outcomes).toEqual(Array(count).fill(404));
}

describe('failed links from one address', () => {
  it('refuse every link from it after 10 in 10 minutes, a right code too, with 429 HTTP-429 and Retry-After', async () => {
    startOfWindow();
    const code = await startLink('ann');
    await failures('127.0.0.2', 10);
    const refused = await link('127.0.0.2', code, scene.sdkKey);
    expect(refused).toMatchObject({ status: 429, code: 'HTTP-429' });
    // The seconds left in the window, which began just before the first attempt.
    const retryAfter = (refused.body.error_data as { retry_after: number }).retry_after;
    expect(retryAfter).toBeGreaterThan(560);
    expect(retryAfter).toBeLessThan(600);
    expect(refused.retryAfter).toBe(String(retryAfter));
    // The refused attempt did not use the code up; another address links with it.
    expect(await link('127.0.0.3', code, scene.sdkKey)).toMatchObject({ status: 201 });
  });

  it('are counted per IPv4 address, and a link that goes through does not count', async () => {
    startOfWindow();
    await failures('127.0.0.4', 9);
    expect(await link('127.0.0.4', await startLink('ben'), scene.sdkKey)).toMatchObject({ status: 201 });
    // A tenth failure is still answered for what it is; the next attempt is refused.
    await failures('127.0.0.4', 1);
    expect(await link('127.0.0.4', await startLink('cleo'))).toMatchObject({ status: 429, code: 'HTTP-429' });
    expect(await link('127.0.0.5', unknownCode())).toMatchObject({ status: 404, code: 'HTTP-404' });
  });

  it('are free again in the next window', async () => {
    startOfWindow();
    await failures('127.0.0.6', 10);
    expect(await link('127.0.0.6', unknownCode())).toMatchObject({ status: 429 });
    vi.setSystemTime(Date.now() + 600_000);
    expect(await link('127.0.0.6', await startLink('dora'), scene.sdkKey)).toMatchObject({ status: 201 });
  });
});

describe('the web authenticator, refused for failed links from its address', () => {
  it('says when to try again, in words', async () => {
    startOfWindow();
    // Its own requests come from 127.0.0.1, which no other test links from.
    await failures('127.0.0.1', 10);
    const refused = await linkAuthenticator({ baseUrl: runtime.baseUrl, code: await startLink('kim') }).catch(
      (error: unknown) => error,
    );
    expect(linkProblem(refused)).toBe(
      'Too many linking codes that did not work were tried from this network. Try again in 10 minutes.',
    );
  });
});

describe("failed links with a directory's SDK key", () => {
  it('refuse links with its SDK keys after 100 in 10 minutes, from any address; the code alone still links', async () => {
    // A directory of its own: the other tests link with theirs in the same window.
    const own = await newAuthScene(runtime);
    startOfWindow();
    // 10 addresses of 10 failures each: none goes past its own limit.
    for (let address = 10; address < 20; address++) await failures(`127.0.1.${address}`, 10, own.sdkKey);
    const code = (
      await own.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
        subject: `dir:${own.directoryId}`,
        body: { identifier: 'eve' },
      })
    ).body?.code as string;
    const refused = await link('127.0.1.20', code, own.sdkKey);
    expect(refused).toMatchObject({ status: 429, code: 'HTTP-429' });
    expect(refused.retryAfter).toBe(String((refused.body.error_data as { retry_after: number }).retry_after));
    // Another directory's key is counted on its own, and is the wrong key for this code.
    expect(await link('127.0.1.21', code, other.sdkKey)).toMatchObject({ status: 403, code: 'HTTP-403' });
    // Neither used the code up.
    expect(await link('127.0.1.22', code)).toMatchObject({ status: 201 });
  });
});

describe('a code presented with an SDK key that is not its directory’s', () => {
  it('still links with the right key after 4 such attempts', async () => {
    startOfWindow();
    const code = await startLink('finn');
    for (let attempt = 0; attempt < 4; attempt++)
      expect(await link('127.0.2.1', code, other.sdkKey)).toMatchObject({ status: 403, code: 'HTTP-403' });
    expect(await link('127.0.2.2', code, scene.sdkKey)).toMatchObject({ status: 201 });
  });

  it('is locked by the 5th: the right key, from another address, finds no code', async () => {
    startOfWindow();
    const code = await startLink('gus');
    for (let attempt = 0; attempt < 5; attempt++)
      expect(await link('127.0.2.3', code, other.sdkKey)).toMatchObject({ status: 403, code: 'HTTP-403' });
    expect(await link('127.0.2.4', code, scene.sdkKey)).toMatchObject({ status: 404, code: 'HTTP-404' });
    expect(await link('127.0.2.4', code)).toMatchObject({ status: 404, code: 'HTTP-404' });
  });
});

describe('the QR image', () => {
  /** The headers, less those that differ between any two answers (the time, the length, the request's id). */
  const withoutVarying = (headers: Answer['headers']) => {
    const { date: _date, 'content-length': _length, 'apigw-requestid': _id, ...rest } = headers;
    return rest;
  };

  it('is answered alike for a code that exists, one used up and one that never existed', async () => {
    const known = await startLink('hana');
    const used = await startLink('ivan');
    expect(await link('127.0.3.1', used, scene.sdkKey)).toMatchObject({ status: 201 });
    const answers = await Promise.all(
      [known, used, 'ZZZZZZZZ'].map((code) => send('127.0.3.2', 'GET', `/public/v3/qrcodes/${code}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const [first, ...rest] = answers.map((answer) => withoutVarying(answer.headers));
    expect(first).toMatchObject({ 'content-type': 'image/png', 'cache-control': 'no-store' });
    for (const headers of rest) expect(headers).toEqual(first);
    // Each encodes the web authenticator's page with its own code, as the qrcode URL promised (at localhost: the
    // runtime answers at 127.0.0.1, where no passkey can be made).
    const decoded = answers.map((answer) => {
      const png = PNG.sync.read(answer.body);
      return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
    });
    expect(decoded).toEqual(
      [known, used, 'ZZZZZZZZ'].map((code) => `${webAuthenticatorUrl(runtime.baseUrl)}#code=${code}`),
    );
  });

  it('is 404 HTTP-404 for what cannot be a code', async () => {
    for (const code of ['abcdefgh', 'ABC', 'A'.repeat(17), 'ABCD-EFG']) {
      const answer = await send('127.0.3.3', 'GET', `/public/v3/qrcodes/${code}`);
      const body = JSON.parse(answer.body.toString('utf8')) as { error_code: string };
      expect({ status: answer.status, code: body.error_code }).toEqual({ status: 404, code: 'HTTP-404' });
    }
  });
});
