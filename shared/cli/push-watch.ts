import { createECDH, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decrypt } from 'http_ece';
import { importJWK, jwtVerify } from 'jose';
import type { Authenticator } from '#shared/authenticator/authenticator';

/** What a push to the reference authenticator says, decrypted (docs/protocol.md#push). */
export interface WatchedPush {
  readonly type: 'auth_request' | 'auth_request_ended' | 'device_link_request';
  /** Absent from a device link request, which names the new device instead. */
  readonly auth_request: string;
  readonly device_id?: string;
  readonly title: string;
  readonly body: string;
  readonly tag: string;
}

export interface PushWatch {
  /** The subscription's endpoint: this process's own receiver. */
  readonly endpoint: string;
  /** Removes the device's push channel and stops receiving. */
  stop(): Promise<void>;
}

/** A push is small; anything larger is not one. */
const maxPushBytes = 8 * 1024;

/**
 * Plays a browser's push subscription on this machine: a loopback receiver with keys of its own, registered as the
 * device's Web Push channel. Each push must carry a VAPID JWT signed by the service's key (`aud` this receiver's
 * origin) and decrypt (RFC 8291) with the subscription's keys; anything else is answered 400 and reported.
 */
export async function watchPushes(
  device: Authenticator,
  handlers: { onPush(push: WatchedPush): void; onRejected(reason: string): void },
  host = '127.0.0.1',
): Promise<PushWatch> {
  const { vapid_public_key: vapidKey } = await device.pushSettings();
  const point = Buffer.from(vapidKey, 'base64url');
  const serviceKey = await importJWK(
    {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    'ES256',
  );
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  let origin = '';

  async function open(authorization: string | undefined, body: Buffer): Promise<WatchedPush> {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
    if (!match || match[2] !== vapidKey) throw new Error('not signed with the service VAPID key');
    await jwtVerify(match[1] ?? '', serviceKey, { algorithms: ['ES256'], audience: origin });
    const plaintext = decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth });
    return JSON.parse(plaintext.toString('utf8')) as WatchedPush;
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxPushBytes) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      open(request.headers.authorization, Buffer.concat(chunks)).then(
        (push) => {
          response.writeHead(201).end();
          handlers.onPush(push);
        },
        (error: unknown) => {
          response.writeHead(400).end();
          handlers.onRejected((error as Error).message);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const endpoint = `${origin}/push/${randomBytes(12).toString('base64url')}`;
  try {
    await device.registerWebPush({
      endpoint,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth },
    });
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    endpoint,
    async stop() {
      await device.removePush().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
