import { randomBytes, randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import type { TestServiceAccount } from '#test/support/service-account';
import { received as receivedItem } from '#test/support/waiting';

/**
 * Google's OAuth 2.0 token endpoint and FCM HTTP v1 on loopback, checking what they check: the RFC 7523 grant (form
 * encoding, grant type, an RS256 assertion signed by the service account's key and naming it in `kid`, `iss`, `aud`,
 * the scope, a lifetime of at most an hour), then each send's bearer token, project and message shape. Answers are
 * FCM's documented ones, scripted per registration token.
 */
export interface ReceivedFcmMessage {
  readonly project: string;
  /** The registration token the message went to. */
  readonly token: string;
  /** The whole request body: `{ message: … }`. */
  readonly body: Record<string, unknown>;
  readonly message: Record<string, unknown>;
  readonly status: number;
}

/** A scripted answer to a send: an FCM error by its code, or one that never comes (for timeouts). */
export type FcmScript =
  | 'UNREGISTERED'
  | 'INVALID_ARGUMENT'
  | 'QUOTA_EXCEEDED'
  | 'UNAVAILABLE'
  | 'INTERNAL'
  | 'SENDER_ID_MISMATCH'
  | 'UNAUTHENTICATED'
  | 'hang'
  | { readonly error: 'QUOTA_EXCEEDED' | 'UNAVAILABLE' | 'INTERNAL'; readonly retryAfter: string };

/** A scripted answer to a grant: an OAuth error, a 503, or none at all. */
export type GrantScript = 'invalid_grant' | 'unavailable' | 'hang';

export interface FcmServer {
  readonly origin: string;
  /** The token endpoint, and so the `aud` a grant must name. */
  readonly tokenUrl: string;
  /** Sends that passed every check, whatever was answered. */
  readonly received: ReceivedFcmMessage[];
  /** Requests that failed a check: a correct client never causes one. */
  readonly rejected: string[];
  /** Every access token issued, in order. */
  readonly tokensIssued: string[];
  /** What to answer to the next sends to a registration token. Default 200. */
  answer(token: string, ...scripts: FcmScript[]): void;
  /** What to answer to the next grants. Default a token. */
  answerGrant(...scripts: GrantScript[]): void;
  /** Makes every token issued so far expired, as Google's are after `expires_in`. */
  expireTokens(): void;
  waitFor(match: (message: ReceivedFcmMessage) => boolean, timeoutMs?: number): Promise<ReceivedFcmMessage>;
  close(): Promise<void>;
}

export interface FcmServerOptions {
  readonly account: TestServiceAccount;
  /** The `expires_in` of issued tokens; Google's is 3599. */
  readonly expiresIn?: number;
  /** Serve https with this certificate (PEM) instead of http. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

const scope = 'https://www.googleapis.com/auth/firebase.messaging';
const fcmErrorType = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const errors: Record<string, { code: number; status: string; message: string; errorCode?: string }> = {
  UNREGISTERED: {
    code: 404,
    status: 'NOT_FOUND',
    message: 'Requested entity was not found.',
    errorCode: 'UNREGISTERED',
  },
  INVALID_ARGUMENT: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: 'The registration token is not a valid FCM registration token',
    errorCode: 'INVALID_ARGUMENT',
  },
  QUOTA_EXCEEDED: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    message: 'Quota exceeded for quota metric.',
    errorCode: 'QUOTA_EXCEEDED',
  },
  UNAVAILABLE: {
    code: 503,
    status: 'UNAVAILABLE',
    message: 'The service is currently unavailable.',
    errorCode: 'UNAVAILABLE',
  },
  INTERNAL: { code: 500, status: 'INTERNAL', message: 'Internal error encountered.', errorCode: 'INTERNAL' },
  SENDER_ID_MISMATCH: {
    code: 403,
    status: 'PERMISSION_DENIED',
    message: 'SenderId mismatch',
    errorCode: 'SENDER_ID_MISMATCH',
  },
  UNAUTHENTICATED: {
    code: 401,
    status: 'UNAUTHENTICATED',
    message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
  },
  PERMISSION_DENIED: {
    code: 403,
    status: 'PERMISSION_DENIED',
    message: "Permission 'cloudmessaging.messages.create' denied on resource.",
  },
  BAD_MESSAGE: { code: 400, status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
};

// Field names FCM knows (proto JSON takes lowerCamel and snake_case alike); anything else is a 400.
const messageFields = [
  'name',
  'data',
  'notification',
  'android',
  'webpush',
  'apns',
  'fcm_options',
  'token',
  'topic',
  'condition',
];
const androidFields = [
  'collapse_key',
  'priority',
  'ttl',
  'restricted_package_name',
  'data',
  'notification',
  'fcm_options',
  'direct_boot_ok',
  'bandwidth_constrained_ok',
  'restricted_satellite_ok',
];
const androidNotificationStrings = [
  'title',
  'body',
  'icon',
  'color',
  'sound',
  'tag',
  'click_action',
  'body_loc_key',
  'title_loc_key',
  'channel_id',
  'ticker',
  'event_time',
  'image',
];
const androidNotificationOther = [
  'body_loc_args',
  'title_loc_args',
  'sticky',
  'local_only',
  'notification_priority',
  'default_sound',
  'default_vibrate_timings',
  'default_light_settings',
  'vibrate_timings',
  'visibility',
  'notification_count',
  'light_settings',
  'bypass_proxy_notification',
  'proxy',
];

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class Refused extends Error {}

export async function startFcmServer(options: FcmServerOptions): Promise<FcmServer> {
  const { account } = options;
  const projectId = account.file.project_id ?? '';
  const received: ReceivedFcmMessage[] = [];
  const rejected: string[] = [];
  const tokensIssued: string[] = [];
  const expiries = new Map<string, number>();
  const scripts = new Map<string, FcmScript[]>();
  const grantScripts: GrantScript[] = [];
  let origin = '';

  async function checkGrant(request: IncomingMessage, body: string): Promise<void> {
    if (!/^application\/x-www-form-urlencoded\b/.test(request.headers['content-type'] ?? '')) {
      throw new Refused('the grant is not form-encoded');
    }
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      throw new Refused(`grant_type ${form.get('grant_type') ?? '(none)'}`);
    }
    const assertion = form.get('assertion') ?? '';
    const header = decodeProtectedHeader(assertion);
    if (header.kid !== account.file.private_key_id)
      throw new Refused(`kid ${String(header.kid)} is not the key's id`);
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(assertion, account.publicKey, {
        algorithms: ['RS256'],
        issuer: account.file.client_email ?? '',
        audience: `${origin}/token`,
      }));
    } catch (error) {
      throw new Refused(`the assertion does not verify: ${(error as Error).message}`);
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
      throw new Refused('iat or exp missing');
    if (claims.exp - claims.iat > 3600) throw new Refused('the assertion lives longer than an hour');
    if (claims.iat > now + 60) throw new Refused('iat is in the future');
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(scope)) {
      throw new Refused(`scope ${String(claims.scope)} lacks firebase.messaging`);
    }
  }

  function bearer(request: IncomingMessage): 'ok' | 'expired' | 'unknown' {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    const expiry = match ? expiries.get(match[1] ?? '') : undefined;
    if (expiry === undefined) return 'unknown';
    return Date.now() < expiry ? 'ok' : 'expired';
  }

  function checkMessage(
    request: IncomingMessage,
    text: string,
  ): { body: Record<string, unknown>; message: Record<string, unknown> } {
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? ''))
      throw new Refused('the body is not JSON');
    const body: unknown = JSON.parse(text);
    if (!isObject(body) || !isObject(body.message)) throw new Refused('no message');
    for (const key of Object.keys(body)) {
      if (!['message', 'validate_only', 'validateOnly'].includes(key))
        throw new Refused(`unknown field ${key}`);
    }
    const message = body.message;
    for (const key of Object.keys(message)) {
      if (!messageFields.includes(snake(key))) throw new Refused(`unknown field message.${key}`);
    }
    const targets = ['token', 'topic', 'condition'].filter((key) => message[key] !== undefined);
    if (targets.length !== 1 || typeof message[targets[0] ?? ''] !== 'string') {
      throw new Refused('a message needs exactly one of token, topic, condition');
    }
    checkData(message.data, 'message.data');
    let payloadBytes =
      JSON.stringify(message.data ?? {}).length + JSON.stringify(message.notification ?? {}).length;
    const android = message.android;
    if (android !== undefined) {
      if (!isObject(android)) throw new Refused('message.android is not an object');
      for (const key of Object.keys(android)) {
        if (!androidFields.includes(snake(key))) throw new Refused(`unknown field message.android.${key}`);
      }
      if (android.priority !== undefined && !['HIGH', 'NORMAL'].includes(android.priority as string)) {
        throw new Refused(`priority ${JSON.stringify(android.priority)}`);
      }
      if (android.ttl !== undefined) {
        const ttl = typeof android.ttl === 'string' ? /^(\d+)(\.\d+)?s$/.exec(android.ttl) : null;
        if (!ttl || Number(ttl[1]) > 2_419_200) throw new Refused(`ttl ${JSON.stringify(android.ttl)}`);
      }
      const collapseKey = android.collapse_key ?? android.collapseKey;
      if (collapseKey !== undefined && typeof collapseKey !== 'string')
        throw new Refused('collapse_key is not a string');
      checkData(android.data, 'message.android.data');
      const notification = android.notification;
      if (notification !== undefined) {
        if (!isObject(notification)) throw new Refused('message.android.notification is not an object');
        for (const [key, value] of Object.entries(notification)) {
          const name = snake(key);
          if (androidNotificationStrings.includes(name)) {
            if (typeof value !== 'string')
              throw new Refused(`message.android.notification.${key} is not a string`);
          } else if (!androidNotificationOther.includes(name)) {
            throw new Refused(`unknown field message.android.notification.${key}`);
          }
        }
        payloadBytes += JSON.stringify(notification).length;
      }
    }
    if (payloadBytes > 4096) throw new Refused('the payload is larger than 4096 bytes');
    return { body, message };
  }

  function checkData(data: unknown, where: string): void {
    if (data === undefined) return;
    if (!isObject(data)) throw new Refused(`${where} is not an object`);
    for (const [key, value] of Object.entries(data)) {
      if (typeof value !== 'string') throw new Refused(`${where}.${key} is not a string`);
      // Keys FCM keeps for itself.
      if (['from', 'notification', 'message_type'].includes(key) || /^(google|gcm)/i.test(key)) {
        throw new Refused(`${where}.${key} is a reserved key`);
      }
    }
  }

  function sendError(response: ServerResponse, name: string, headers: Record<string, string> = {}): void {
    const error = errors[name] ?? errors.INTERNAL;
    if (!error) return;
    response.writeHead(error.code, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    response.end(
      JSON.stringify({
        error: {
          code: error.code,
          message: error.message,
          status: error.status,
          ...(error.errorCode ? { details: [{ '@type': fcmErrorType, errorCode: error.errorCode }] } : {}),
        },
      }),
    );
  }

  async function onGrant(request: IncomingMessage, response: ServerResponse, body: string): Promise<void> {
    const oauthError = (status: number, error: string, description: string) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error, error_description: description }));
    };
    try {
      await checkGrant(request, body);
    } catch (error) {
      rejected.push(`grant: ${(error as Error).message}`);
      oauthError(400, 'invalid_grant', 'Invalid JWT Signature.');
      return;
    }
    const script = grantScripts.shift();
    if (script === 'hang') return;
    if (script === 'invalid_grant')
      return oauthError(400, 'invalid_grant', 'Invalid grant: account not found');
    if (script === 'unavailable') return oauthError(503, 'internal_failure', 'Backend Error');
    const token = `ya29.${randomBytes(48).toString('base64url')}`;
    const expiresIn = options.expiresIn ?? 3599;
    expiries.set(token, Date.now() + expiresIn * 1000);
    tokensIssued.push(token);
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify({ access_token: token, expires_in: expiresIn, token_type: 'Bearer' }));
  }

  function onSend(request: IncomingMessage, response: ServerResponse, body: string, project: string): void {
    const auth = bearer(request);
    if (auth !== 'ok') {
      if (auth === 'unknown') rejected.push('send: a bearer token this server did not issue');
      return sendError(response, 'UNAUTHENTICATED', {
        'www-authenticate': 'Bearer realm="https://accounts.google.com/"',
      });
    }
    if (project !== projectId) {
      rejected.push(`send: project ${project} is not the account's`);
      return sendError(response, 'PERMISSION_DENIED');
    }
    let checked;
    try {
      checked = checkMessage(request, body);
    } catch (error) {
      rejected.push(`send: ${(error as Error).message}`);
      return sendError(response, 'BAD_MESSAGE');
    }
    const token = String(checked.message.token ?? checked.message.topic ?? checked.message.condition);
    const script = scripts.get(token)?.shift();
    const status =
      script === undefined
        ? 200
        : script === 'hang'
          ? 0
          : (errors[typeof script === 'string' ? script : script.error]?.code ?? 500);
    received.push({ project, token, ...checked, status });
    if (script === 'hang') return;
    if (script === undefined) {
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify({ name: `projects/${projectId}/messages/${randomUUID()}` }));
      return;
    }
    if (typeof script === 'string') return sendError(response, script);
    sendError(response, script.error, { 'retry-after': script.retryAfter });
  }

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '';
      const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
      if (request.method === 'POST' && path === '/token') {
        void onGrant(request, response, body);
      } else if (request.method === 'POST' && send) {
        onSend(request, response, body, decodeURIComponent(send[1] ?? ''));
      } else {
        rejected.push(`${request.method ?? ''} ${path}: no such endpoint`);
        response.writeHead(404);
        response.end();
      }
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    tokenUrl: `${origin}/token`,
    received,
    rejected,
    tokensIssued,
    answer(token, ...more) {
      scripts.set(token, [...(scripts.get(token) ?? []), ...more]);
    },
    answerGrant(...more) {
      grantScripts.push(...more);
    },
    expireTokens() {
      for (const token of expiries.keys()) expiries.set(token, 0);
    },
    waitFor(match, timeoutMs = 10_000) {
      return receivedItem(received, match, timeoutMs, 'no matching FCM message', rejected);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
