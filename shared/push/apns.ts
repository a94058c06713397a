import { createHash, createPrivateKey, type KeyObject } from 'node:crypto';
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect,
  constants,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
} from 'node:http2';
import { rootCertificates, type SecureContextOptions } from 'node:tls';
import { SignJWT } from 'jose';
import type { ApnsCredentials } from '#shared/domain/apns-credentials';
import type { ApnsChannel } from '#shared/push/channel';
import { retryAfterSeconds } from '#shared/push/post';
import { type PushNotification, type PushProvider, type PushResult, pushAbout } from '#shared/push/provider';

export interface ApnsOptions {
  readonly credentials: ApnsCredentials;
  /** Origins of the two APNs; the real ones by default. */
  readonly urls?: { readonly production?: string; readonly sandbox?: string };
  /** How long one push may take, connection included. */
  readonly timeoutMs: number;
  /** PEM certificates trusted besides the default roots: a TLS-inspecting proxy's, or a local stand-in's. */
  readonly ca?: string;
  /** Milliseconds since the epoch; the clock of `apns-expiration` and of the JWT's age. */
  readonly now?: () => number;
}

export type ApnsProvider = PushProvider<ApnsChannel> & {
  /** Closes the connections kept open between pushes. */
  close(): void;
};

export const apnsDefaultUrls = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
} as const;

/** APNs refuses a payload above 4 KB with 413 PayloadTooLarge. */
export const maxApnsPayloadBytes = 4096;
/** APNs refuses a longer `apns-collapse-id` with 400 BadCollapseId. */
const maxCollapseIdBytes = 64;
/**
 * Apple refuses a provider token older than an hour (403 ExpiredProviderToken) and one renewed within 20 minutes of
 * the last (429 TooManyProviderTokenUpdates): one JWT serves 50 minutes.
 */
const jwtLifetimeMs = 50 * 60 * 1000;
const maxResponseBytes = 16 * 1024;
const deviceToken = /^[0-9a-f]{64,200}$/;
/** Apple's reasons are short PascalCase words; anything else is not repeated into a log. */
const appleReason = /^[A-Za-z]{1,64}$/;
const providerTokenRefused = new Set(['ExpiredProviderToken', 'InvalidProviderToken']);

/**
 * The JSON an iOS app receives. A prompt is an alert showing the title and body (time-sensitive, so Focus modes let
 * a sign-in through); an `ended` push is a background push the app wakes to, to take the prompt down. Besides `aps`,
 * only the request's id and what the push is about: lock screens are public. A prompt too long for APNs loses the end
 * of its body, then of its title.
 */
export function apnsPayload(notification: PushNotification): string {
  const about = pushAbout(notification).fields;
  if (notification.kind === 'ended') return JSON.stringify({ aps: { 'content-available': 1 }, ...about });
  const prompt = (title: string, body: string) =>
    JSON.stringify({
      aps: { alert: { title, body }, sound: 'default', 'interruption-level': 'time-sensitive' },
      ...about,
    });
  const fits = (payload: string) => Buffer.byteLength(payload) <= maxApnsPayloadBytes;
  const body = shorten(notification.body, (text) => fits(prompt(notification.title, text)));
  const title = shorten(notification.title, (text) => fits(prompt(text, body)));
  return prompt(title, body);
}

/** The longest start of `text` (whole code points, an ellipsis marking the cut) that `fits`, or all of it. */
function shorten(text: string, fits: (text: string) => boolean): string {
  if (fits(text)) return text;
  const codePoints = [...text];
  let [low, high] = [0, codePoints.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(`${codePoints.slice(0, middle).join('')}…`)) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? '' : `${codePoints.slice(0, low).join('')}…`;
}

/** The `apns-collapse-id` of every push about one request: its id, or the id's SHA-256 should it ever be longer. */
export function apnsCollapseId(authRequestId: string): string {
  return Buffer.byteLength(authRequestId) <= maxCollapseIdBytes
    ? authRequestId
    : createHash('sha256').update(authRequestId).digest('hex');
}

/**
 * APNs over HTTP/2 (Apple's "Sending notification requests to APNs"): one connection per APNs origin, kept open and
 * reused across pushes as Apple asks (opening one per push gets a provider treated as a denial of service), opened
 * again once closed or sent GOAWAY. Authenticated by TLS client certificate, or by an ES256 provider token renewed
 * every 50 minutes. Never logs: the caller logs the result, which holds no token, key or payload.
 */
export function apnsProvider(options: ApnsOptions): ApnsProvider {
  const { credentials } = options;
  const now = options.now ?? Date.now;
  const urls = {
    production: options.urls?.production ?? apnsDefaultUrls.production,
    sandbox: options.urls?.sandbox ?? apnsDefaultUrls.sandbox,
  };
  const tls: SecureContextOptions = {
    ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
    ...(credentials.kind === 'certificate'
      ? { key: credentials.keyPem, cert: credentials.certificatePem }
      : {}),
  };
  const sessions = new Map<string, { session: ClientHttp2Session; streams: number }>();
  const signingKey: KeyObject | undefined =
    credentials.kind === 'token' ? createPrivateKey(credentials.keyPem) : undefined;
  let providerToken: { jwt: Promise<string>; issuedAt: number } | undefined;

  function bearer(): Promise<string> | undefined {
    if (credentials.kind !== 'token' || !signingKey) return undefined;
    if (!providerToken || now() - providerToken.issuedAt >= jwtLifetimeMs) {
      const issuedAt = now();
      providerToken = {
        issuedAt,
        jwt: new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: credentials.keyId })
          .setIssuer(credentials.teamId)
          .setIssuedAt(Math.floor(issuedAt / 1000))
          .sign(signingKey),
      };
    }
    return providerToken.jwt;
  }

  function sessionFor(origin: string) {
    const open = sessions.get(origin);
    if (open && !open.session.closed && !open.session.destroyed) return open;
    const session = connect(origin, tls);
    const entry = { session, streams: 0 };
    const forget = () => {
      if (sessions.get(origin) === entry) sessions.delete(origin);
    };
    // A failed connection fails its streams, which report it; the session's own error needs a listener all the same.
    session.on('error', forget);
    session.on('close', forget);
    sessions.set(origin, entry);
    return entry;
  }

  async function send(channel: ApnsChannel, notification: PushNotification): Promise<PushResult> {
    if (!deviceToken.test(channel.token)) return { outcome: 'failed', reason: 'the device token is not hex' };
    const jwt = bearer();
    const authorization = jwt === undefined ? undefined : await jwt;
    const ttl = Math.max(0, Math.floor(notification.ttlSeconds));
    const prompt = notification.kind !== 'ended';
    const headers = {
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: `/3/device/${channel.token}`,
      'apns-topic': credentials.topic,
      'apns-push-type': prompt ? 'alert' : 'background',
      'apns-priority': prompt ? '10' : '5',
      'apns-expiration': String(ttl === 0 ? 0 : Math.floor(now() / 1000) + ttl),
      'apns-collapse-id': apnsCollapseId(pushAbout(notification).collapseId),
      ...(authorization === undefined ? {} : { authorization: `bearer ${authorization}` }),
    };
    const answer = await post(urls[channel.environment], headers, Buffer.from(apnsPayload(notification)));
    if (!answer.answered) return { outcome: 'retry-after', reason: answer.reason };
    const { status } = answer;
    const reason = readReason(answer.body);
    const said = `APNs answered ${status}${reason === undefined ? '' : ` ${reason}`}`;
    if (status === 200) return { outcome: 'delivered', status };
    if (status === 410 || (status === 400 && reason === 'BadDeviceToken')) return { outcome: 'gone', status };
    if (status === 403 && reason !== undefined && providerTokenRefused.has(reason)) {
      // Only the token this push carried: a newer one signed meanwhile stays.
      if (providerToken?.jwt === jwt) providerToken = undefined;
      return { outcome: 'retry-after', reason: said, status };
    }
    if (status === 429 || status >= 500 || reason === 'TooManyProviderTokenUpdates') {
      const seconds = retryAfterSeconds(answer.retryAfter, now());
      return { outcome: 'retry-after', reason: said, status, ...(seconds === undefined ? {} : { seconds }) };
    }
    return { outcome: 'failed', reason: said, status };
  }

  type Answer =
    | { answered: true; status: number; retryAfter: string | undefined; body: Buffer }
    | { answered: false; reason: string };

  function post(origin: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
    let entry: ReturnType<typeof sessionFor>;
    try {
      entry = sessionFor(origin);
    } catch (error) {
      return Promise.resolve({ answered: false, reason: `could not connect: ${(error as Error).message}` });
    }
    const { session } = entry;
    return new Promise((resolve) => {
      let stream: ClientHttp2Stream | undefined;
      let settled = false;
      const settle = (answer: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // An idle connection must not keep a process alive; one carrying a push must.
        if (--entry.streams === 0 && !session.destroyed) session.unref();
        resolve(answer);
      };
      const timer = setTimeout(() => {
        stream?.close(constants.NGHTTP2_CANCEL);
        // A connection still being made after the whole timeout is not worth waiting for.
        if (session.connecting) session.destroy();
        settle({ answered: false, reason: `no answer within ${options.timeoutMs} ms` });
      }, options.timeoutMs);
      entry.streams++;
      session.ref();
      try {
        stream = session.request(headers);
      } catch (error) {
        settle({ answered: false, reason: `could not send: ${(error as Error).message}` });
        return;
      }
      let response: (IncomingHttpHeaders & IncomingHttpStatusHeader) | undefined;
      const chunks: Buffer[] = [];
      let received = 0;
      stream.on('response', (answer) => (response = answer));
      stream.on('data', (chunk: Buffer) => {
        if (received >= maxResponseBytes) return;
        chunks.push(chunk.subarray(0, maxResponseBytes - received));
        received += chunk.byteLength;
        if (received >= maxResponseBytes) stream?.close(constants.NGHTTP2_NO_ERROR);
      });
      stream.on('error', (error: Error) =>
        settle({ answered: false, reason: `connection failed: ${error.message}` }),
      );
      stream.on('close', () => {
        const status = response?.[':status'];
        if (status === undefined) {
          settle({ answered: false, reason: 'the connection closed without an answer' });
          return;
        }
        const retryAfter: string | string[] | undefined = response?.['retry-after'];
        settle({
          answered: true,
          status,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : retryAfter?.[0],
          body: Buffer.concat(chunks),
        });
      });
      stream.end(body);
    });
  }

  return {
    send,
    close() {
      for (const { session } of sessions.values()) session.close();
      sessions.clear();
    },
  };
}

/** Apple's `reason` from an error's JSON body, when it is one of its words. */
function readReason(body: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const reason = (parsed as { reason?: unknown } | null)?.reason;
    return typeof reason === 'string' && appleReason.test(reason) ? reason : undefined;
  } catch {
    return undefined;
  }
}
