import { createPublicKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import { received as receivedItem } from '#test/support/waiting';

/**
 * APNs on loopback, checking each push the way Apple's servers do ("Sending notification requests to APNs",
 * "Handling notification responses from APNs") and answering Apple's status codes and reasons. Production and
 * sandbox are two servers sharing one record. Where Apple only advises (a background push at priority 5, with
 * `content-available` and nothing to show; `apns-topic` and `apns-push-type` always sent) this is stricter.
 *
 * Made with the fixtures in test/fixtures/apns (see apns-fixtures.md): the servers' certificate is issued for
 * localhost and 127.0.0.1 by `serverCa`; client certificates must chain to the push CA and carry the topic as UID;
 * provider tokens must be signed by the .p8 key under its key id and team id.
 */
export type ApnsEnvironment = 'production' | 'sandbox';

export interface ReceivedApnsPush {
  readonly environment: ApnsEnvironment;
  readonly token: string;
  readonly topic: string;
  readonly auth: 'certificate' | 'token';
  readonly headers: IncomingHttpHeaders;
  readonly payload: Record<string, unknown>;
  /** The provider token's claims, in token mode. */
  readonly claims?: JWTPayload;
  /** Which TLS connection carried it, numbered from 1 in the order they were accepted. */
  readonly connection: number;
  readonly status: number;
  readonly apnsId: string;
}

/** A scripted answer to the next push to a token that passes the checks; `hang` never answers. */
export type ApnsAnswer =
  | { readonly status: number; readonly reason?: string; readonly retryAfter?: string }
  | { readonly hang: true };

export interface ApnsServer {
  readonly urls: { readonly production: string; readonly sandbox: string };
  /** The PEM that the servers' certificate chains to: the provider's `ca`. */
  readonly serverCa: string;
  /** Every request, in order, with what was answered. */
  readonly requests: { readonly token: string; readonly status: number; readonly reason?: string }[];
  /** The pushes that passed every check (answered 200 or as scripted). */
  readonly received: ReceivedApnsPush[];
  /** Checks a push failed, as `<status> <reason>: <why>`: a correct client never causes one. */
  readonly rejected: string[];
  /** TLS connections accepted so far, both servers together. */
  connections(): number;
  answer(token: string, ...answers: ApnsAnswer[]): void;
  /** Sends GOAWAY on every open connection and closes it, as APNs does now and then. */
  disconnect(): Promise<void>;
  waitFor(match: (push: ReceivedApnsPush) => boolean, timeoutMs?: number): Promise<ReceivedApnsPush>;
  close(): Promise<void>;
}

export const apnsFixture = (name: string) =>
  readFileSync(new URL(`../fixtures/apns/${name}`, import.meta.url), 'utf8');

/** The token signing key the servers know by default: the .p8 fixture, under Apple's documentation's ids. */
export const testTokenKey = {
  keyId: 'ABC123DEFG',
  teamId: 'DEF123GHIJ',
  keyPem: apnsFixture('AuthKey_ABC123DEFG.p8'),
  /** The app the key pushes to in most tests. */
  topic: 'com.example.authenticator',
  /** The apps of the team: the topics its tokens may push to. */
  topics: ['com.example.authenticator'],
} as const;

const pushTypes = new Set([
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'widgets',
]);
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    why: string,
  ) {
    super(why);
  }
}

export async function startApnsServer(
  options: {
    readonly tokenKeys?: readonly {
      readonly keyId: string;
      readonly teamId: string;
      readonly keyPem: string;
      readonly topics: readonly string[];
    }[];
  } = {},
): Promise<ApnsServer> {
  const tokenKeys = (options.tokenKeys ?? [testTokenKey]).map((key) => ({
    ...key,
    publicKey: createPublicKey(key.keyPem),
  }));
  const answers = new Map<string, ApnsAnswer[]>();
  const requests: { token: string; status: number; reason?: string }[] = [];
  const received: ReceivedApnsPush[] = [];
  const rejected: string[] = [];
  const connectionIds = new WeakMap<Http2Session, number>();
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  let connections = 0;

  async function authenticate(
    headers: IncomingHttpHeaders,
    socket: TLSSocket,
    topic: string,
  ): Promise<{ auth: 'certificate' | 'token'; claims?: JWTPayload }> {
    const authorization = headers.authorization;
    if (authorization !== undefined) {
      const match = /^bearer ([A-Za-z0-9_.-]+)$/.exec(authorization);
      if (!match?.[1]) throw new Refusal(403, 'InvalidProviderToken', 'authorization is not "bearer <JWT>"');
      const jwt = match[1];
      let kid: string | undefined;
      try {
        ({ kid } = decodeProtectedHeader(jwt));
      } catch {
        throw new Refusal(403, 'InvalidProviderToken', 'the JWT does not parse');
      }
      const key = tokenKeys.find((candidate) => candidate.keyId === kid);
      if (!key) throw new Refusal(403, 'InvalidProviderToken', `no key with kid ${String(kid)}`);
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(jwt, key.publicKey, {
          algorithms: ['ES256'],
          issuer: key.teamId,
        }));
      } catch (error) {
        throw new Refusal(403, 'InvalidProviderToken', (error as Error).message);
      }
      const now = Date.now() / 1000;
      if (typeof claims.iat !== 'number') throw new Refusal(403, 'InvalidProviderToken', 'iat is missing');
      if (claims.iat > now + 60) throw new Refusal(403, 'InvalidProviderToken', 'iat is in the future');
      if (claims.iat < now - 3600) throw new Refusal(403, 'ExpiredProviderToken', 'iat is over an hour old');
      if (!key.topics.includes(topic)) {
        throw new Refusal(400, 'TopicDisallowed', `${topic} is not a topic of team ${key.teamId}`);
      }
      return { auth: 'token', claims };
    }
    const certificate = socket.getPeerCertificate();
    if (!certificate || Object.keys(certificate).length === 0) {
      throw new Refusal(403, 'MissingProviderToken', 'neither a client certificate nor a provider token');
    }
    if (!socket.authorized) {
      throw new Refusal(
        403,
        'BadCertificate',
        `the client certificate: ${String(socket.authorizationError)}`,
      );
    }
    const uid = (certificate.subject as unknown as Record<string, unknown>).UID;
    if (uid !== topic) {
      throw new Refusal(
        400,
        'TopicDisallowed',
        `apns-topic ${topic} is not the certificate's UID ${String(uid)}`,
      );
    }
    return { auth: 'certificate' };
  }

  async function check(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<Omit<ReceivedApnsPush, 'environment' | 'connection' | 'status' | 'apnsId'>> {
    if (headers[constants.HTTP2_HEADER_METHOD] !== 'POST') {
      throw new Refusal(405, 'MethodNotAllowed', `method ${String(headers[':method'])}`);
    }
    const path = /^\/3\/device\/([^/?]*)$/.exec(String(headers[constants.HTTP2_HEADER_PATH]));
    if (!path) throw new Refusal(404, 'BadPath', `path ${String(headers[':path'])}`);
    const token = path[1] ?? '';
    if (token === '') throw new Refusal(400, 'MissingDeviceToken', 'no device token');
    if (!/^[0-9a-fA-F]{64,}$/.test(token)) throw new Refusal(400, 'BadDeviceToken', 'the token is not hex');
    const topic = headers['apns-topic'];
    if (typeof topic !== 'string' || topic === '') throw new Refusal(400, 'MissingTopic', 'no apns-topic');
    const { auth, claims } = await authenticate(headers, stream.session?.socket as TLSSocket, topic);
    const pushType = headers['apns-push-type'];
    if (typeof pushType !== 'string' || !pushTypes.has(pushType)) {
      throw new Refusal(400, 'InvalidPushType', `apns-push-type ${String(pushType)}`);
    }
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) {
      throw new Refusal(400, 'BadExpirationDate', `apns-expiration ${String(expiration)}`);
    }
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['1', '5', '10'].includes(String(priority))) {
      throw new Refusal(400, 'BadPriority', `apns-priority ${String(priority)}`);
    }
    if (pushType === 'background' && priority !== '5') {
      throw new Refusal(400, 'BadPriority', 'a background push must have apns-priority 5');
    }
    const collapseId = headers['apns-collapse-id'];
    if (collapseId !== undefined && Buffer.byteLength(String(collapseId)) > 64) {
      throw new Refusal(400, 'BadCollapseId', 'apns-collapse-id is over 64 bytes');
    }
    const apnsId = headers['apns-id'];
    if (apnsId !== undefined && !uuid.test(String(apnsId))) {
      throw new Refusal(400, 'BadMessageId', `apns-id ${String(apnsId)}`);
    }
    if (body.byteLength > 4096) throw new Refusal(413, 'PayloadTooLarge', `${body.byteLength} bytes`);
    if (body.byteLength === 0) throw new Refusal(400, 'PayloadEmpty', 'no body');
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      throw new Refusal(400, 'PayloadEmpty', 'the body is not JSON');
    }
    const aps = (payload as { aps?: unknown } | null)?.aps;
    if (typeof payload !== 'object' || Array.isArray(payload) || typeof aps !== 'object' || aps === null) {
      throw new Refusal(400, 'PayloadEmpty', 'the body has no aps dictionary');
    }
    const apsKeys = Object.keys(aps);
    if (pushType === 'background') {
      if ((aps as Record<string, unknown>)['content-available'] !== 1) {
        throw new Refusal(400, 'PayloadEmpty', 'a background push needs content-available 1');
      }
      if (apsKeys.some((key) => ['alert', 'sound', 'badge'].includes(key))) {
        throw new Refusal(400, 'InvalidPushType', 'a background push shows nothing');
      }
    }
    if (pushType === 'alert' && !apsKeys.includes('alert')) {
      throw new Refusal(400, 'InvalidPushType', 'an alert push without aps.alert');
    }
    return {
      token: token.toLowerCase(),
      topic,
      auth,
      headers,
      payload: payload as Record<string, unknown>,
      ...(claims === undefined ? {} : { claims }),
    };
  }

  function respond(stream: ServerHttp2Stream, status: number, reason?: string, retryAfter?: string) {
    const apnsId = randomUUID();
    if (stream.destroyed || stream.closed) return apnsId;
    stream.respond({
      [constants.HTTP2_HEADER_STATUS]: status,
      'apns-id': apnsId,
      ...(reason === undefined ? {} : { 'content-type': 'application/json' }),
      ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
    });
    const timestamp = status === 410 ? { timestamp: Date.now() } : {};
    stream.end(reason === undefined ? undefined : JSON.stringify({ reason, ...timestamp }));
    return apnsId;
  }

  function handle(environment: ApnsEnvironment, stream: ServerHttp2Stream, headers: IncomingHttpHeaders) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', () => undefined);
    stream.on('end', () => {
      const token = String(headers[':path']).replace(/^\/3\/device\//, '');
      check(stream, headers, Buffer.concat(chunks)).then(
        (push) => {
          const next = answers.get(push.token)?.shift() ?? { status: 200 };
          if ('hang' in next) {
            requests.push({ token, status: 0 });
            return;
          }
          const apnsId = respond(stream, next.status, next.reason, next.retryAfter);
          requests.push({ token, status: next.status, ...(next.reason ? { reason: next.reason } : {}) });
          const connection = (stream.session && connectionIds.get(stream.session)) ?? 0;
          received.push({ ...push, environment, connection, status: next.status, apnsId });
        },
        (error: unknown) => {
          const refusal =
            error instanceof Refusal ? error : new Refusal(500, 'InternalServerError', String(error));
          rejected.push(`${refusal.status} ${refusal.reason}: ${refusal.message}`);
          requests.push({ token, status: refusal.status, reason: refusal.reason });
          respond(stream, refusal.status, refusal.reason);
        },
      );
    });
  }

  const servers: Http2SecureServer[] = [];
  async function listen(environment: ApnsEnvironment): Promise<string> {
    const server = createSecureServer({
      key: apnsFixture('server.key.pem'),
      cert: apnsFixture('server.pem'),
      ca: apnsFixture('push-ca.pem'),
      requestCert: true,
      // Refused in HTTP as 403 BadCertificate rather than in the handshake, so a test can see why.
      rejectUnauthorized: false,
    });
    server.on('session', (session) => {
      connectionIds.set(session, ++connections);
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
      session.on('error', () => undefined);
    });
    server.on('stream', (stream, headers) => handle(environment, stream, headers));
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const urls = { production: await listen('production'), sandbox: await listen('sandbox') };

  return {
    urls,
    serverCa: apnsFixture('server-ca.pem'),
    requests,
    received,
    rejected,
    connections: () => connections,
    answer(token, ...scripted) {
      answers.set(token, [...(answers.get(token) ?? []), ...scripted]);
    },
    async disconnect() {
      await Promise.all(
        [...sessions].map((session) => new Promise<void>((resolve) => session.close(() => resolve()))),
      );
    },
    waitFor(match, timeoutMs = 10_000) {
      return receivedItem(received, match, timeoutMs, 'no matching push', rejected);
    },
    async close() {
      const closed = servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      // Connections a client keeps open would hold close() forever.
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      await Promise.all(closed);
    },
  };
}
