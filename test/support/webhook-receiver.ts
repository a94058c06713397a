import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactDecrypt, decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';

/**
 * A webhook endpoint of an application, checking each request the way the LaunchKey SDKs do (docs/protocol.md#webhooks),
 * with jose directly rather than the service's own verifier: the JWT in X-IOV-JWT signed by the API key its kid names
 * (fetched from /public/v3/public-key/{kid}), `iss`, `aud`, `sub`, the times, `request.meth`, `request.path` and the
 * body hash; then the body, decrypted with the application's keys when it is a JWE.
 */
export interface ReceivedWebhook {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly claims: JWTPayload & { request: Record<string, unknown> };
  /** The decrypted JSON of a JWE body, or the parsed JSON of a plain one. */
  readonly body: Record<string, unknown>;
  /** The kid of the key the JWE named, if it was one. */
  readonly encryptedTo: string | undefined;
  readonly rawBody: string;
  readonly receivedAt: number;
  /** What the receiver answered. */
  readonly status: number;
}

export interface WebhookReceiver {
  readonly port: number;
  /** A URL of this receiver, e.g. `url('/hooks/service')`. */
  url(path: string): string;
  /** Every request that came, verified or not, in order. */
  readonly requests: { readonly path: string; readonly at: number; readonly status: number }[];
  /** The webhooks that verified, in order. */
  readonly received: ReceivedWebhook[];
  /** Failures to verify: a correct service never causes one. */
  readonly rejected: string[];
  /**
   * Webhooks that could not be checked because the API did not answer for its key (during a restart, say): answered
   * 503, as an application would, so the sender tries again. Not a failure to verify.
   */
  readonly unchecked: string[];
  /** What to answer to the next request of a path: a status, or a delay and a status. Defaults to 200. */
  answer(path: string, ...statuses: (number | { delayMs: number; status: number })[]): void;
  waitFor(match: (webhook: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The API to fetch signing keys from. */
  readonly apiBaseUrl: string;
  /** The application's private keys by kid, for JWE bodies. */
  readonly keys: ReadonlyMap<string, KeyObject>;
  /** Listen on every interface (default only 127.0.0.1). */
  readonly host?: string;
}

export async function startWebhookReceiver(options: ReceiverOptions): Promise<WebhookReceiver> {
  const requests: WebhookReceiver['requests'] = [];
  const received: ReceivedWebhook[] = [];
  const rejected: string[] = [];
  const unchecked: string[] = [];
  const scripts = new Map<string, (number | { delayMs: number; status: number })[]>();
  const waiters: {
    match: (webhook: ReceivedWebhook) => boolean;
    resolve: (webhook: ReceivedWebhook) => void;
  }[] = [];
  const apiKeys = new Map<string, KeyObject>();

  async function apiKey(kid: string): Promise<KeyObject> {
    const known = apiKeys.get(kid);
    if (known) return known;
    const response = await fetch(`${options.apiBaseUrl}/public/v3/public-key/${kid}`).catch(
      (error: unknown) => {
        throw new ApiUnreachable(
          `the API gave no key ${kid}: ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    );
    if (!response.ok) throw new Error(`no API key ${kid}`);
    const key = createPublicKey(await response.text());
    apiKeys.set(kid, key);
    return key;
  }

  async function verify(path: string, headers: IncomingHttpHeaders, rawBody: string) {
    const token = headers['x-iov-jwt'];
    if (typeof token !== 'string') throw new Error('no X-IOV-JWT header');
    if (headers['x-api-jwt'] !== token) throw new Error('X-API-JWT differs from X-IOV-JWT');
    if (headers.authorization !== undefined) throw new Error('a webhook carries no Authorization header');
    const { kid } = decodeProtectedHeader(token);
    if (typeof kid !== 'string') throw new Error('the JWT names no kid');
    const { payload } = await jwtVerify(token, await apiKey(kid), {
      algorithms: ['RS256', 'RS384', 'RS512'],
      clockTolerance: 30,
      requiredClaims: ['iss', 'aud', 'sub', 'iat', 'nbf', 'exp', 'jti'],
    });
    const request = payload.request as Record<string, unknown> | undefined;
    if (!request) throw new Error('no request claim');
    if (request.meth !== 'POST') throw new Error(`request.meth is ${String(request.meth)}`);
    if (request.path !== path) throw new Error(`request.path ${String(request.path)} is not ${path}`);
    const algorithm = { S256: 'sha256', S384: 'sha384', S512: 'sha512' }[String(request.func)];
    if (!algorithm) throw new Error(`request.func ${String(request.func)}`);
    if (createHash(algorithm).update(rawBody).digest('hex') !== request.hash) {
      throw new Error('request.hash does not match the body');
    }
    const contentType = headers['content-type'];
    let body: Record<string, unknown>;
    let encryptedTo: string | undefined;
    if (contentType?.startsWith('application/jose')) {
      encryptedTo = decodeProtectedHeader(rawBody).kid;
      const key = encryptedTo === undefined ? undefined : options.keys.get(encryptedTo);
      if (!key)
        throw new Error(`the body is encrypted to ${encryptedTo ?? 'no kid'}, a key this application lacks`);
      const { plaintext } = await compactDecrypt(rawBody, key);
      body = JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
    } else {
      body = JSON.parse(rawBody) as Record<string, unknown>;
    }
    return { claims: payload as ReceivedWebhook['claims'], body, encryptedTo, contentType };
  }

  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void (async () => {
        const path = new URL(incoming.url ?? '/', 'http://receiver').pathname;
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const scripted = scripts.get(path)?.shift() ?? 200;
        const { delayMs, status } =
          typeof scripted === 'number' ? { delayMs: 0, status: scripted } : scripted;
        const at = Date.now();
        requests.push({ path, at, status });
        let abandoned = false;
        response.once('close', () => {
          abandoned = !response.writableFinished;
        });
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        // A sender that gave up before the answer did not deliver: it will try again.
        if (abandoned) return;
        if (status >= 200 && status < 300) {
          try {
            const verified = await verify(path, incoming.headers, rawBody);
            const webhook: ReceivedWebhook = {
              ...verified,
              path,
              headers: incoming.headers,
              rawBody,
              receivedAt: at,
              status,
            };
            received.push(webhook);
            for (const waiter of waiters.filter((candidate) => candidate.match(webhook))) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(webhook);
            }
          } catch (error) {
            if (error instanceof ApiUnreachable) {
              unchecked.push(`${path}: ${error.message}`);
              response.writeHead(503).end();
              return;
            }
            rejected.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
            response.writeHead(400).end();
            return;
          }
        }
        if (!response.destroyed) response.writeHead(status).end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    received,
    rejected,
    unchecked,
    answer(path, ...statuses) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...statuses]);
    },
    waitFor(match, timeoutMs = 10_000) {
      const already = received.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no matching webhook within ${timeoutMs} ms; rejected: ${rejected.join('; ')}`));
        }, timeoutMs);
        waiters.push({
          match,
          resolve: (webhook) => {
            clearTimeout(timer);
            resolve(webhook);
          },
        });
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The key could not be fetched at all: nothing is known of the webhook yet, so it is neither received nor refused. */
class ApiUnreachable extends Error {}
