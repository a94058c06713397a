import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { connect, type IncomingHttpHeaders } from 'node:http2';
import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApnsCredentials,
  apnsCertificateCredentials,
  apnsTokenCredentials,
} from '#shared/domain/apns-credentials';
import { type ApnsOptions, type ApnsProvider, apnsProvider } from '#shared/push/apns';
import type { ApnsChannel } from '#shared/push/channel';
import type { AuthRequestNotification } from '#shared/push/provider';
import { type ApnsServer, apnsFixture, startApnsServer, testTokenKey } from '#test/support/apns-server';

let server: ApnsServer;
const providers: ApnsProvider[] = [];

beforeAll(async () => {
  server = await startApnsServer();
});
afterEach(() => {
  for (const provider of providers.splice(0)) provider.close();
  // Every push a correct provider sends passes the stand-in's checks; the tests that break a check take theirs.
  const rejected = takeRejected();
  if (rejected.length > 0) throw new Error(`the stand-in refused: ${rejected.join('; ')}`);
});
afterAll(async () => {
  await server.close();
});

const certificate = apnsCertificateCredentials(apnsFixture('push.p12.base64'));
const token = apnsTokenCredentials(testTokenKey);

function provider(credentials: ApnsCredentials, options: Partial<ApnsOptions> = {}): ApnsProvider {
  const made = apnsProvider({
    credentials,
    urls: server.urls,
    ca: server.serverCa,
    timeoutMs: 5_000,
    ...options,
  });
  providers.push(made);
  return made;
}

function channel(environment: ApnsChannel['environment'] = 'production'): ApnsChannel {
  return {
    type: 'apns',
    token: randomBytes(32).toString('hex'),
    environment,
    registered: '2026-01-01T00:00:00Z',
  };
}

const prompt = (ttlSeconds = 120): AuthRequestNotification => ({
  kind: 'prompt',
  authRequestId: randomUUID(),
  title: 'Example Bank',
  body: 'Approve the sign-in?',
  ttlSeconds,
});
const ended = (): AuthRequestNotification => ({
  kind: 'ended',
  authRequestId: randomUUID(),
  title: 'Example Bank',
  body: 'Answered on another device',
  ttlSeconds: 600,
});

/** The headers APNs reads, without HTTP/2's own and the authorization. */
function apnsHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('apns-')));
}

/** The stand-in's refusals since the last call, taken so the afterEach check sees none. */
function takeRejected(): string[] {
  return server.rejected.splice(0);
}

describe('what a push carries', () => {
  it('a prompt: an alert with the title and body, the request id, expiring with the request', async () => {
    const now = Date.now();
    const to = channel();
    const notification = prompt(120);
    const result = await provider(certificate, { now: () => now }).send(to, notification);
    expect(result).toEqual({ outcome: 'delivered', status: 200 });
    const push = await server.waitFor((received) => received.token === to.token);
    expect(push).toMatchObject({ environment: 'production', auth: 'certificate' });
    expect(apnsHeaders(push.headers)).toEqual({
      'apns-topic': 'com.example.authenticator',
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(Math.floor(now / 1000) + 120),
      'apns-collapse-id': notification.authRequestId,
    });
    expect(push.headers[':path']).toBe(`/3/device/${to.token}`);
    expect(push.headers.authorization).toBeUndefined();
    expect(push.payload).toEqual({
      aps: {
        alert: { title: 'Example Bank', body: 'Approve the sign-in?' },
        sound: 'default',
        'interruption-level': 'time-sensitive',
      },
      type: 'auth_request',
      auth_request: notification.authRequestId,
    });
  });

  it('an end: a background push with the request id only, to the sandbox for a sandbox token', async () => {
    const now = Date.now();
    const to = channel('sandbox');
    const notification = ended();
    expect(await provider(certificate, { now: () => now }).send(to, notification)).toEqual({
      outcome: 'delivered',
      status: 200,
    });
    const push = await server.waitFor((received) => received.token === to.token);
    expect(push.environment).toBe('sandbox');
    expect(apnsHeaders(push.headers)).toEqual({
      'apns-topic': 'com.example.authenticator',
      'apns-push-type': 'background',
      'apns-priority': '5',
      'apns-expiration': String(Math.floor(now / 1000) + 600),
      'apns-collapse-id': notification.authRequestId,
    });
    expect(push.payload).toEqual({
      aps: { 'content-available': 1 },
      type: 'auth_request_ended',
      auth_request: notification.authRequestId,
    });
  });

  it('a request with no time left is offered once: apns-expiration 0', async () => {
    const to = channel();
    await provider(certificate).send(to, prompt(0));
    const push = await server.waitFor((received) => received.token === to.token);
    expect(push.headers['apns-expiration']).toBe('0');
  });

  it('a prompt too long for APNs is cut to fit rather than refused', async () => {
    const to = channel();
    const notification = { ...prompt(), title: '𝕏'.repeat(200), body: '𝕏'.repeat(1000) };
    expect(await provider(certificate).send(to, notification)).toMatchObject({ outcome: 'delivered' });
    const push = await server.waitFor((received) => received.token === to.token);
    const { body } = (push.payload.aps as { alert: { body: string } }).alert;
    expect(body.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(push.payload))).toBeGreaterThan(4000);
  });

  it('with a provider token: ES256 under the key id, issued by the team, reused from push to push', async () => {
    const now = Date.now();
    const send = provider(token, { now: () => now });
    const [first, second] = [channel(), channel()];
    await send.send(first, prompt());
    await send.send(second, ended());
    const pushes = await Promise.all(
      [first, second].map((to) => server.waitFor((received) => received.token === to.token)),
    );
    const [one, two] = pushes;
    expect(one).toMatchObject({
      auth: 'token',
      topic: 'com.example.authenticator',
      claims: { iss: 'DEF123GHIJ', iat: Math.floor(now / 1000) },
    });
    const jwt = String(one?.headers.authorization).replace(/^bearer /, '');
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    expect(two?.headers.authorization).toBe(one?.headers.authorization);
  });
});

describe('what APNs answers', () => {
  it.each([
    [{ status: 410, reason: 'Unregistered' }, 410],
    [{ status: 400, reason: 'BadDeviceToken' }, 400],
  ])('%o: the channel is gone', async (answer, status) => {
    const to = channel();
    server.answer(to.token, answer);
    expect(await provider(certificate).send(to, prompt())).toEqual({ outcome: 'gone', status });
  });

  it('429 with Retry-After: try again after that many seconds', async () => {
    const to = channel();
    server.answer(to.token, { status: 429, reason: 'TooManyRequests', retryAfter: '7' });
    expect(await provider(certificate).send(to, prompt())).toEqual({
      outcome: 'retry-after',
      reason: 'APNs answered 429 TooManyRequests',
      status: 429,
      seconds: 7,
    });
  });

  it.each([
    [500, 'InternalServerError'],
    [503, 'ServiceUnavailable'],
  ])('%i: try again, when the worker decides', async (status, reason) => {
    const to = channel();
    server.answer(to.token, { status, reason });
    expect(await provider(certificate).send(to, prompt())).toEqual({
      outcome: 'retry-after',
      reason: `APNs answered ${status} ${reason}`,
      status,
    });
  });

  it("another 4xx fails, with Apple's reason", async () => {
    const to = channel();
    server.answer(to.token, { status: 400, reason: 'DeviceTokenNotForTopic' });
    expect(await provider(certificate).send(to, prompt())).toEqual({
      outcome: 'failed',
      reason: 'APNs answered 400 DeviceTokenNotForTopic',
      status: 400,
    });
  });

  it('a token that is not hex is not sent', async () => {
    const before = server.requests.length;
    const to = { ...channel(), token: '../../health' };
    expect(await provider(certificate).send(to, prompt())).toEqual({
      outcome: 'failed',
      reason: 'the device token is not hex',
    });
    expect(server.requests.length).toBe(before);
  });

  it('no answer within the timeout: try again', async () => {
    const to = channel();
    server.answer(to.token, { hang: true });
    expect(await provider(certificate, { timeoutMs: 300 }).send(to, prompt())).toEqual({
      outcome: 'retry-after',
      reason: 'no answer within 300 ms',
    });
  });

  it('nobody listening: try again', async () => {
    const send = provider(certificate, { urls: { production: 'https://127.0.0.1:1' } });
    expect(await send.send(channel(), prompt())).toMatchObject({
      outcome: 'retry-after',
      reason: expect.stringMatching(/^connection failed: .*ECONNREFUSED/) as unknown,
    });
  });

  it('an APNs URL that is not https: not sent, saying why', async () => {
    const send = provider(certificate, { urls: { production: 'ftp://127.0.0.1' } });
    expect(await send.send(channel(), prompt())).toMatchObject({
      outcome: 'retry-after',
      reason: expect.stringMatching(/^could not connect: /) as unknown,
    });
  });
});

describe('connections', () => {
  it('one TLS connection per APNs carries every push', async () => {
    const before = server.connections();
    const send = provider(certificate);
    await send.send(channel(), prompt());
    await Promise.all(Array.from({ length: 10 }, () => send.send(channel(), prompt())));
    await send.send(channel(), ended());
    expect(server.connections() - before).toBe(1);
    await send.send(channel('sandbox'), ended());
    expect(server.connections() - before).toBe(2);
  });

  it('a connection APNs closes is opened again for the next push', async () => {
    const before = server.connections();
    const send = provider(token);
    await send.send(channel(), prompt());
    await server.disconnect();
    expect(await send.send(channel(), prompt())).toEqual({ outcome: 'delivered', status: 200 });
    expect(server.connections() - before).toBe(2);
  });

  it('TLS is checked: without the stand-in CA the connection is refused', async () => {
    const before = server.requests.length;
    const send = apnsProvider({ credentials: certificate, urls: server.urls, timeoutMs: 5_000 });
    providers.push(send);
    expect(await send.send(channel(), prompt())).toMatchObject({
      outcome: 'retry-after',
      reason: expect.stringMatching(/^connection failed: .*certificate/) as unknown,
    });
    expect(server.requests.length).toBe(before);
  });
});

describe('provider tokens', () => {
  it('renewed once 50 minutes old', async () => {
    let now = Date.now() - 55 * 60 * 1000;
    const send = provider(token, { now: () => now });
    const [first, second] = [channel(), channel()];
    await send.send(first, prompt());
    now = Date.now();
    await send.send(second, prompt());
    const [one, two] = await Promise.all(
      [first, second].map((to) => server.waitFor((received) => received.token === to.token)),
    );
    expect(two?.claims?.iat).toBe(Math.floor(now / 1000));
    expect(two?.claims?.iat).toBeGreaterThan(Number(one?.claims?.iat) + 50 * 60 - 1);
  });

  it.each(['ExpiredProviderToken', 'InvalidProviderToken'])(
    'after 403 %s: try again, with a new token',
    async (reason) => {
      let now = Date.now() - 60_000;
      const send = provider(token, { now: () => now });
      const [refused, next] = [channel(), channel()];
      server.answer(refused.token, { status: 403, reason });
      expect(await send.send(refused, prompt())).toEqual({
        outcome: 'retry-after',
        reason: `APNs answered 403 ${reason}`,
        status: 403,
      });
      now = Date.now();
      await send.send(next, prompt());
      const [one, two] = await Promise.all(
        [refused, next].map((to) => server.waitFor((received) => received.token === to.token)),
      );
      expect(two?.headers.authorization).not.toBe(one?.headers.authorization);
      expect(two?.claims?.iat).toBe(Math.floor(now / 1000));
    },
  );
});

describe('the stand-in checks what APNs checks', () => {
  it('a certificate whose UID is not the topic: 400 TopicDisallowed', async () => {
    const send = provider({ ...certificate, topic: 'com.example.other' });
    expect(await send.send(channel(), prompt())).toEqual({
      outcome: 'failed',
      reason: 'APNs answered 400 TopicDisallowed',
      status: 400,
    });
    expect(takeRejected()).toEqual([
      "400 TopicDisallowed: apns-topic com.example.other is not the certificate's UID com.example.authenticator",
    ]);
  });

  it('a certificate not issued by the push CA: 403 BadCertificate', async () => {
    const send = provider(apnsCertificateCredentials(apnsFixture('push-self-signed.p12.base64')));
    expect(await send.send(channel(), prompt())).toMatchObject({
      outcome: 'failed',
      reason: 'APNs answered 403 BadCertificate',
    });
    expect(takeRejected()).toHaveLength(1);
  });

  it('a token signed by another key under the same key id: 403 InvalidProviderToken', async () => {
    const keyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const send = provider(apnsTokenCredentials({ ...testTokenKey, keyPem }));
    expect(await send.send(channel(), prompt())).toMatchObject({
      outcome: 'retry-after',
      reason: 'APNs answered 403 InvalidProviderToken',
    });
    expect(takeRejected()).toEqual(['403 InvalidProviderToken: signature verification failed']);
  });

  it.each([
    [{ teamId: 'XXXXXXXXXX' }, '403 InvalidProviderToken: unexpected "iss" claim value'],
    [{ keyId: 'XXXXXXXXXX' }, '403 InvalidProviderToken: no key with kid XXXXXXXXXX'],
    [
      { topic: 'com.example.other' },
      '400 TopicDisallowed: com.example.other is not a topic of team DEF123GHIJ',
    ],
  ])('token credentials with %o are refused', async (change, refusal) => {
    await provider(apnsTokenCredentials({ ...testTokenKey, ...change })).send(channel(), prompt());
    expect(takeRejected()).toEqual([refusal]);
  });

  it('a token over an hour old: 403 ExpiredProviderToken', async () => {
    const send = provider(token, { now: () => Date.now() - 61 * 60 * 1000 });
    expect(await send.send(channel(), prompt())).toMatchObject({ outcome: 'retry-after', status: 403 });
    expect(takeRejected()).toEqual(['403 ExpiredProviderToken: iat is over an hour old']);
  });

  const valid = (to: string) => ({
    ':method': 'POST',
    ':path': `/3/device/${to}`,
    'apns-topic': 'com.example.authenticator',
    'apns-push-type': 'alert',
    'apns-priority': '10',
    'apns-expiration': '0',
    'apns-collapse-id': 'x',
  });
  const alert = JSON.stringify({ aps: { alert: { title: 't', body: 'b' } } });

  it.each<[string, (to: string) => Record<string, string>, string, string]>([
    ['a GET', (to) => ({ ...valid(to), ':method': 'GET' }), alert, '405 MethodNotAllowed'],
    ['another path', (to) => ({ ...valid(to), ':path': `/3/devices/${to}` }), alert, '404 BadPath'],
    [
      'a token that is not hex',
      (to) => ({ ...valid(to), ':path': `/3/device/${to}zz` }),
      alert,
      '400 BadDeviceToken',
    ],
    ['no topic', (to) => ({ ...valid(to), 'apns-topic': '' }), alert, '400 MissingTopic'],
    [
      'an unknown push type',
      (to) => ({ ...valid(to), 'apns-push-type': 'prompt' }),
      alert,
      '400 InvalidPushType',
    ],
    [
      'a date as expiration',
      (to) => ({ ...valid(to), 'apns-expiration': '2030-01-01' }),
      alert,
      '400 BadExpirationDate',
    ],
    ['priority 7', (to) => ({ ...valid(to), 'apns-priority': '7' }), alert, '400 BadPriority'],
    [
      'a background push at priority 10',
      (to) => ({ ...valid(to), 'apns-push-type': 'background' }),
      JSON.stringify({ aps: { 'content-available': 1 } }),
      '400 BadPriority',
    ],
    [
      'a 65-byte collapse id',
      (to) => ({ ...valid(to), 'apns-collapse-id': 'x'.repeat(65) }),
      alert,
      '400 BadCollapseId',
    ],
    ['an apns-id that is no UUID', (to) => ({ ...valid(to), 'apns-id': 'one' }), alert, '400 BadMessageId'],
    ['4097 bytes', valid, JSON.stringify({ aps: { alert: 'x'.repeat(4083) } }), '413 PayloadTooLarge'],
    ['no body', valid, '', '400 PayloadEmpty'],
    ['no aps', valid, JSON.stringify({ alert: 'x' }), '400 PayloadEmpty'],
  ])('refuses %s', async (_, headers, body, refusal) => {
    const to = randomBytes(32).toString('hex');
    const status = await rawPush(headers(to), body);
    expect(status).toBe(Number(refusal.slice(0, 3)));
    expect(takeRejected()).toEqual([expect.stringMatching(new RegExp(`^${refusal}:`)) as unknown]);
  });

  it('accepts the valid raw push those break', async () => {
    const to = randomBytes(32).toString('hex');
    expect(await rawPush(valid(to), alert)).toBe(200);
  });
});

/** A push sent by hand over a client-certificate connection, for the checks a correct provider never trips. */
function rawPush(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = connect(server.urls.production, {
      ca: server.serverCa,
      key: certificate.keyPem,
      cert: certificate.certificatePem,
    });
    session.on('error', reject);
    const stream = session.request(headers, { endStream: false });
    stream.on('response', (response) => {
      resolve(Number(response[':status']));
      session.close();
    });
    stream.on('error', reject);
    stream.end(body);
  });
}
