import { createECDH, type ECDH, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decrypt } from 'http_ece';
import { importJWK, type JWTPayload, jwtVerify } from 'jose';
import { received as receivedItem } from '#test/support/waiting';

/**
 * A Web Push service on loopback, checking each push the way a real one does: the RFC 8292 VAPID JWT (ES256 by the key
 * in `k`, `aud` the endpoint's origin, `exp` in the future and at most 24 hours away, `sub` a mailto: or https: URL),
 * the RFC 8030 headers; then the body, decrypted (RFC 8291 aes128gcm) with the subscription's own keys, as the
 * browser would.
 */
export interface ReceivedPush {
  readonly subscription: string;
  readonly headers: IncomingHttpHeaders;
  readonly claims: JWTPayload;
  /** The VAPID public key the JWT was verified with. */
  readonly vapidKey: string;
  readonly payload: Record<string, unknown>;
  readonly status: number;
}

export interface TestSubscription {
  readonly name: string;
  /** What a browser's `PushSubscription.toJSON()` gives. */
  readonly json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
}

export interface PushReceiver {
  readonly origin: string;
  /** A new subscription with its own keys, at `/push/<name>`. */
  subscribe(name: string): TestSubscription;
  /** Every request that came, in order: its subscription and what was answered. */
  readonly requests: { readonly subscription: string; readonly status: number }[];
  /** The pushes that verified and decrypted (answered 2xx or not). */
  readonly received: ReceivedPush[];
  /** Failures to verify or decrypt: a correct service never causes one. */
  readonly rejected: string[];
  /** What to answer to the next pushes to a subscription: statuses, optionally with Retry-After. Default 201. */
  answer(name: string, ...statuses: (number | { status: number; retryAfter: string })[]): void;
  waitFor(match: (push: ReceivedPush) => boolean, timeoutMs?: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const keys = new Map<string, { ecdh: ECDH; auth: string }>();
  const answers = new Map<string, (number | { status: number; retryAfter: string })[]>();
  const requests: { subscription: string; status: number }[] = [];
  const received: ReceivedPush[] = [];
  const rejected: string[] = [];
  let origin = '';

  async function check(name: string, headers: IncomingHttpHeaders, body: Buffer, status: number) {
    const subscription = keys.get(name);
    if (!subscription) throw new Error(`no subscription ${name}`);
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(headers.authorization ?? '');
    if (!match) throw new Error(`Authorization is not VAPID: ${headers.authorization ?? '(none)'}`);
    const [, token = '', vapidKey = ''] = match;
    const point = Buffer.from(vapidKey, 'base64url');
    if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
    const key = await importJWK(
      {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      'ES256',
    );
    const { payload: claims } = await jwtVerify(token, key, { algorithms: ['ES256'], audience: origin });
    const now = Date.now() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + 24 * 3600) {
      throw new Error(`exp ${String(claims.exp)} is not within the next 24 hours`);
    }
    if (
      typeof claims.sub !== 'string' ||
      !/^(mailto:[^@\s]+@[^@\s]+\.[a-z]+|https:\/\/[^/\s]+\.[a-z]+)/i.test(claims.sub)
    ) {
      throw new Error(`sub ${String(claims.sub)} is not a mailto: or https: URL`);
    }
    if (headers['content-encoding'] !== 'aes128gcm') throw new Error('Content-Encoding is not aes128gcm');
    if (!/^\d+$/.test(String(headers.ttl))) throw new Error('TTL is missing');
    const plaintext = decrypt(body, {
      version: 'aes128gcm',
      privateKey: subscription.ecdh,
      authSecret: subscription.auth,
    });
    received.push({
      subscription: name,
      headers,
      claims,
      vapidKey,
      payload: JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>,
      status,
    });
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const name = (request.url ?? '').replace(/^\/push\//, '');
      const next = answers.get(name)?.shift() ?? 201;
      const { status, retryAfter } =
        typeof next === 'number' ? { status: next, retryAfter: undefined } : next;
      requests.push({ subscription: name, status });
      check(name, request.headers, Buffer.concat(chunks), status)
        .catch((error: unknown) => rejected.push(`${name}: ${(error as Error).message}`))
        .finally(() => {
          response.writeHead(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter });
          response.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    subscribe(name) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16).toString('base64url');
      keys.set(name, { ecdh, auth });
      return {
        name,
        json: {
          endpoint: `${origin}/push/${name}`,
          expirationTime: null,
          keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth },
        },
      };
    },
    requests,
    received,
    rejected,
    answer(name, ...statuses) {
      answers.set(name, [...(answers.get(name) ?? []), ...statuses]);
    },
    waitFor(match, timeoutMs = 10_000) {
      return receivedItem(received, match, timeoutMs, 'no matching push', rejected);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
