/**
 * The one route table. The CDK stack makes a function, an integration and grants from each row; the local runtime
 * routes HTTP requests and queue messages with the same rows. Adding an endpoint is one handler file and one row.
 */
import type { ItemKind, TableGrant } from '#shared/store/item-kinds';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function touches; the stack grants exactly this and nothing else. */
export interface Access {
  /**
   * The item kinds of the table it reads and writes: read actions on `reads`, write actions on `writes`, each limited
   * to those kinds' partition keys. The local runtime refuses a store call outside them, so every test proves them.
   */
  readonly table?: TableGrant;
  /** Reads the API's private key ring (RSA): every function that signs responses or decrypts requests. */
  readonly apiKeys?: boolean;
  /**
   * Reads the hash key: keyed user hashes, sealed TOTP secrets and push credentials, passkey challenges. Only the
   * functions whose bundle loads shared/api-keys/current-hash-key.ts (the bundle test holds this).
   */
  readonly hashKey?: boolean;
  /** Reads the VAPID key pair: the push worker, and what hands out its public half. */
  readonly vapidKeys?: boolean;
  /** Sends to the webhook queue. */
  readonly webhookQueue?: boolean;
  /** Delivers webhooks: puts retries back on the webhook queue and moves dead messages to its DLQ. */
  readonly webhookDelivery?: boolean;
  /** Checks push endpoints against the webhook address guard: gets its policy, no grant. */
  readonly pushEndpoints?: boolean;
  /** Sends to the push queue (never waited on by the caller's answer beyond the send itself). */
  readonly pushQueue?: boolean;
  /** Delivers pushes: puts retries back on the push queue and moves dead messages to its DLQ. */
  readonly pushDelivery?: boolean;
  /**
   * Lists and redrives both queues' dead letters (the operator's, in the console): receives, hides again and deletes
   * on the two dead-letter queues, and sends to the two queues.
   */
  readonly deadLetters?: boolean;
  /** Verifies passkeys: carries the WebAuthn library as a file of its own beside its bundle, loaded on first use. */
  readonly webAuthn?: boolean;
  /**
   * The audit table: `append` puts records and nothing else; `read` queries it and nothing else (the reader). No role
   * has both, so none can find a record and overwrite it.
   */
  readonly audit?: 'append' | 'read';
}

export interface HttpRoute {
  readonly method: HttpMethod;
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/, without extension, exporting `handler`. */
  readonly handler: string;
  readonly access: Access;
}

/**
 * The item kinds a function reads, and those it writes (a signed row's come on top of the pipeline's). Any test through
 * the local runtime fails when a handler touches more; `TABLE_GRANT_RECORD=<file>` lists what it touched instead.
 */
function table(reads: readonly ItemKind[], writes: readonly ItemKind[] = []): Access {
  return { table: { reads, writes } };
}

/**
 * Every signed operation reads its issuer's head and keys, whatever kind of entity names itself in `iss` (the
 * subject check comes after), records its jti (a write) and signs its response with the API key.
 */
const signedAccess: Access = {
  ...table(['organization', 'directory', 'service', 'device'], ['jti']),
  apiKeys: true,
  // Every verified request that changes state, or is refused, is recorded (shared/http/middlewares/record-audit.ts).
  audit: 'append',
};

function signed(method: HttpMethod, path: string, handler: string, access: Access = {}): HttpRoute {
  return {
    method,
    path,
    handler,
    access: { ...signedAccess, ...access, table: union(signedAccess, access) },
  };
}

function union(...accesses: Access[]): TableGrant {
  const kinds = (mode: keyof TableGrant) => [
    ...new Set(accesses.flatMap((access) => access.table?.[mode] ?? [])),
  ];
  return { reads: kinds('reads'), writes: kinds('writes') };
}

function unsigned(method: HttpMethod, path: string, handler: string, access: Access): HttpRoute {
  return { method, path, handler, access };
}

/** Operations that announce what they did through the webhook queue. */
const publishes: Access = { webhookQueue: true };

/** Operations the user's devices hear about through the push queue: an auth request, a link, an unlink. */
const pushes: Access = { pushQueue: true };

/** Operations that compute user hashes, seal or open secrets, or make passkey challenges with the hash key. */
const hashes: Access = { hashKey: true };

/** Operations that register or check a device's passkey. */
const passkeys: Access = { webAuthn: true };

/**
 * The functions a login waits on, from the application's request to its answer: create, the device's list and
 * answer, the poll. `-c loginReservedConcurrency` sets concurrency aside for each of them.
 */
export const loginHandlers: readonly string[] = [
  'service/create-auth-request',
  'device/list-auth-requests',
  'device/answer-auth-request',
  'service/get-auth-request',
];

export const httpRoutes: readonly HttpRoute[] = [
  unsigned('GET', '/public/v3/ping', 'public/ping', {}),
  unsigned('GET', '/public/v3/public-key', 'public/get-public-key', table(['apiPublicKey'], [])),
  unsigned('GET', '/public/v3/public-key/{kid}', 'public/get-public-key', table(['apiPublicKey'], [])),
  unsigned('GET', '/public/v3/icons/service.svg', 'public/get-service-icon', {}),
  unsigned('GET', '/public/v3/qrcodes/{code}', 'public/get-qr-code', {}),
  unsigned('GET', '/public/v3/openapi.json', 'public/get-openapi', {}),
  unsigned('GET', '/v1/ping', 'v1/ping', table(['apiPublicKey'], [])),
  // The v1 poll decrypts the service's secret with the API's key.
  unsigned('GET', '/v1/poll', 'v1/poll', {
    ...table(['v1AppKey', 'service', 'authRequest'], []),
    apiKeys: true,
    ...hashes,
  }),

  signed(
    'POST',
    '/organization/v3/directories',
    'organization/create-directory',
    table([], ['organization', 'directory']),
  ),
  // An android_key that is not a service-account file is shown as given, opened with the hash key.
  signed('GET', '/organization/v3/directories', 'organization/list-directories', hashes),
  signed('POST', '/organization/v3/directories/list', 'organization/list-directories-by-ids', hashes),
  signed('PATCH', '/organization/v3/directories', 'organization/update-directory', {
    ...table([], ['organization', 'directory']),
    ...hashes,
  }),
  signed(
    'POST',
    '/organization/v3/directory/keys',
    'organization/add-directory-key',
    table([], ['directory']),
  ),
  signed('POST', '/organization/v3/directory/keys/list', 'organization/list-directory-keys'),
  signed(
    'PATCH',
    '/organization/v3/directory/keys',
    'organization/update-directory-key',
    table([], ['directory']),
  ),
  signed(
    'DELETE',
    '/organization/v3/directory/keys',
    'organization/remove-directory-key',
    table([], ['directory']),
  ),
  signed(
    'POST',
    '/organization/v3/directory/sdk-keys',
    'organization/generate-sdk-key',
    table([], ['organization', 'sdkKey']),
  ),
  signed('POST', '/organization/v3/directory/sdk-keys/list', 'organization/list-sdk-keys'),
  signed(
    'DELETE',
    '/organization/v3/directory/sdk-keys',
    'organization/remove-sdk-key',
    table([], ['organization', 'sdkKey']),
  ),
  // An extension: the organization's audit trail.
  signed('POST', '/organization/v3/audit/list', 'organization/list-audit-records', { audit: 'read' }),

  signed(
    'POST',
    '/organization/v3/services',
    'organization/create-service',
    table(['serviceName'], ['organization', 'service', 'serviceName']),
  ),
  signed('GET', '/organization/v3/services', 'organization/list-services'),
  signed('POST', '/organization/v3/services/list', 'organization/list-services-by-ids'),
  signed(
    'PATCH',
    '/organization/v3/services',
    'organization/update-service',
    table(['serviceName'], ['organization', 'service', 'serviceName']),
  ),
  signed('POST', '/organization/v3/service/keys', 'organization/add-service-key', table([], ['service'])),
  signed('POST', '/organization/v3/service/keys/list', 'organization/list-service-keys'),
  signed('PATCH', '/organization/v3/service/keys', 'organization/update-service-key', table([], ['service'])),
  signed(
    'DELETE',
    '/organization/v3/service/keys',
    'organization/remove-service-key',
    table([], ['service']),
  ),
  signed('POST', '/organization/v3/service/policy/item', 'organization/get-service-policy'),
  signed('PUT', '/organization/v3/service/policy', 'organization/set-service-policy', table([], ['service'])),
  signed(
    'DELETE',
    '/organization/v3/service/policy',
    'organization/remove-service-policy',
    table([], ['service']),
  ),

  signed(
    'POST',
    '/directory/v3/services',
    'directory/create-service',
    table(['serviceName'], ['organization', 'directory', 'service', 'serviceName']),
  ),
  signed('GET', '/directory/v3/services', 'directory/list-services'),
  signed('POST', '/directory/v3/services/list', 'directory/list-services-by-ids'),
  signed(
    'PATCH',
    '/directory/v3/services',
    'directory/update-service',
    table(['serviceName'], ['directory', 'service', 'serviceName']),
  ),
  signed('POST', '/directory/v3/service/keys', 'directory/add-service-key', table([], ['service'])),
  signed('POST', '/directory/v3/service/keys/list', 'directory/list-service-keys'),
  signed('PATCH', '/directory/v3/service/keys', 'directory/update-service-key', table([], ['service'])),
  signed('DELETE', '/directory/v3/service/keys', 'directory/remove-service-key', table([], ['service'])),
  signed('POST', '/directory/v3/service/policy/item', 'directory/get-service-policy'),
  signed('PUT', '/directory/v3/service/policy', 'directory/set-service-policy', table([], ['service'])),
  signed('DELETE', '/directory/v3/service/policy', 'directory/remove-service-policy', table([], ['service'])),

  signed('POST', '/service/v3/auths', 'service/create-auth-request', {
    ...table(['authRequest', 'userHead'], ['authRequest', 'directory']),
    ...pushes,
    ...hashes,
  }),
  signed('GET', '/service/v3/auths/{auth_request}', 'service/get-auth-request', {
    ...table(['authRequest'], ['authRequest']),
    ...hashes,
  }),
  signed('DELETE', '/service/v3/auths/{auth_request}', 'service/cancel-auth-request', {
    ...table(['authRequest'], ['authRequest', 'directory']),
    ...pushes,
  }),
  signed('POST', '/service/v3/sessions', 'service/start-session', { ...table([], ['directory']), ...hashes }),
  signed('DELETE', '/service/v3/sessions', 'service/end-session', { ...table([], ['directory']), ...hashes }),
  signed('POST', '/service/v3/totp', 'service/verify-totp', { ...table([], ['directory']), ...hashes }),

  signed(
    'POST',
    '/directory/v3/devices',
    'directory/start-device-link',
    table([], ['organization', 'directory', 'userHead', 'linkCode']),
  ),
  signed('POST', '/directory/v3/devices/list', 'directory/list-devices'),
  signed('DELETE', '/directory/v3/devices', 'directory/unlink-device', {
    ...table([], ['directory', 'device']),
    ...pushes,
  }),
  signed('POST', '/directory/v3/sessions/list', 'directory/list-sessions'),
  signed('DELETE', '/directory/v3/sessions', 'directory/end-sessions', table([], ['directory'])),
  signed('POST', '/directory/v3/totp', 'directory/generate-totp', {
    ...table([], ['organization', 'directory', 'userHead']),
    ...hashes,
  }),
  signed('DELETE', '/directory/v3/totp', 'directory/remove-totp', table([], ['directory'])),
  signed('POST', '/directory/v3/totp/item', 'directory/get-totp'),

  // The device API: this service's own, signed by the device's key (dev:<uuid>) once it has linked.
  unsigned('POST', '/device/v3/link', 'device/link', {
    ...table(
      ['linkCode', 'sdkKey', 'organization', 'directory', 'device'],
      ['linkCode', 'linkAddress', 'directory', 'device'],
    ),
    ...publishes,
    ...pushes,
    audit: 'append',
  }),
  signed('GET', '/device/v3/auths', 'device/list-auth-requests', {
    ...table(['authRequest'], []),
    ...hashes,
  }),
  signed('POST', '/device/v3/auths/{auth_request}', 'device/answer-auth-request', {
    ...table(['authRequest'], ['authRequest', 'directory']),
    ...hashes,
    ...publishes,
    ...pushes,
    ...passkeys,
  }),
  signed('GET', '/device/v3/sessions', 'device/list-sessions'),
  signed('DELETE', '/device/v3/sessions', 'device/end-session', {
    ...table([], ['directory']),
    ...publishes,
  }),
  signed('DELETE', '/device/v3/link', 'device/unlink', table([], ['directory', 'device'])),
  signed('GET', '/device/v3/link', 'device/get-link', table([], ['device'])),
  signed('GET', '/device/v3/link-requests', 'device/list-link-requests'),
  signed('POST', '/device/v3/link-requests/{device_id}', 'device/answer-link-request', {
    ...table([], ['directory', 'device']),
    ...publishes,
  }),
  signed('GET', '/device/v3/push', 'device/get-push', { vapidKeys: true }),
  signed('PUT', '/device/v3/push', 'device/register-push', {
    ...table([], ['directory']),
    pushEndpoints: true,
  }),
  signed('DELETE', '/device/v3/push', 'device/remove-push', table([], ['directory'])),
  signed('POST', '/device/v3/passkey/options', 'device/passkey-options', {
    ...table([], ['directory']),
    ...passkeys,
  }),
  signed('PUT', '/device/v3/passkey', 'device/register-passkey', {
    ...table([], ['directory']),
    ...passkeys,
  }),
];

/** The key ring custom resource publishes the API's public keys to the table. */
export const keyRingAccess: Access = table(['apiPublicKey'], ['apiPublicKey']);

/** A web app served from its build: one function answers GET on each of its paths. */
export interface WebAppRoute {
  readonly handler: string;
  readonly access: Access;
  readonly paths: readonly string[];
}

/**
 * The web apps: the web authenticator (web/authenticator/) and the console's pages (web/console/), each built into
 * .tmp/web/<app>/: files of a page, not operations of the API (no signature, no OpenAPI entry), so they stand apart
 * from the operations' table. `{proxy+}` takes the rest of the path, slashes included, as API Gateway's greedy
 * parameter does; the handler serves only its builds' files. One function serves both: the console's pages cost the
 * stack two routes, not a function. The console's files are flat (one segment under `/console/`), so its pages take
 * `{file}`, never a greedy path that would also match the console's API under `/console/api/`: which of two greedy
 * routes of different methods API Gateway prefers is not a rule to lean on.
 */
export const webAppRoute: WebAppRoute = {
  handler: 'public/web-apps',
  access: {},
  // API Gateway routes `/authenticator/` to `/authenticator` (a route may not end in `/`), rawPath keeping the slash.
  paths: ['/authenticator', '/authenticator/{proxy+}', '/console', '/console/{file}'],
};

/** One function behind a greedy route that takes every method, routing inside itself. */
export interface ProxyRoute {
  readonly method: 'ANY';
  readonly path: string;
  readonly handler: string;
  readonly access: Access;
}

/**
 * The console's API (docs/console.md): one function, with its own pipeline (session, role, CSRF) and its own small
 * route table (functions/console/api.ts), so that the console costs the stack one function and one route however
 * many endpoints it grows. It reads and writes its own items; reads organizations and directories for what it shows;
 * records every change in the audit trail; verifies admins' passkeys; links admins' authenticators and asks their
 * sign-in approvals through the console's own directory and service.
 */
export const consoleRoute: ProxyRoute = {
  method: 'ANY',
  path: '/console/api/{proxy+}',
  handler: 'console/api',
  access: {
    // Its actions go through the signed API's use cases, and touch what theirs touch (their rows above): directories
    // and SDK keys, services and their names, keys at each level, users, their devices and linking codes. Sign-in
    // approvals (docs/console.md#approval) use the console's own directory, service, links and auth requests.
    ...table(
      [
        'console',
        'organization',
        'organizationList',
        'directory',
        'health',
        'service',
        'serviceName',
        'device',
        'userHead',
        'authRequest',
      ],
      [
        'console',
        'organization',
        'directory',
        'sdkKey',
        'service',
        'serviceName',
        'userHead',
        'linkCode',
        'device',
        'authRequest',
      ],
    ),
    audit: 'append',
    ...passkeys,
    // An approval's push package is signed with the API key, its user hashed; its push, and an unlink's notice to the
    // user's devices, queued.
    apiKeys: true,
    ...hashes,
    ...pushes,
    // The operator's dead letters of both queues (docs/console.md#dead-letters): listed and redriven as the CLI does.
    deadLetters: true,
  },
};

/**
 * The console's audit trail (docs/console.md#audit-trail): a function of its own behind the more specific route, since
 * it reads the audit table, which the console's other function writes, and no role may do both. It reads sessions
 * (and moves their idle deadline) and organizations, and writes nothing else: its endpoints are all reads.
 */
export const consoleAuditRoute: ProxyRoute = {
  method: 'ANY',
  path: '/console/api/audit/{proxy+}',
  handler: 'console/audit-api',
  access: { ...table(['console', 'organization'], ['console']), audit: 'read' },
};

/** Requests that match no row: ARG-002 in a signed response under the signed prefixes, a plain 404 elsewhere. */
export const fallbackRoute: Pick<HttpRoute, 'handler' | 'access'> = {
  handler: 'fallback/unknown-route',
  access: signedAccess,
};

/**
 * The webhook queue: how long a batch may hold its messages, and how many receives the queue itself allows before
 * the DLQ — a safety net for a worker that fails outright; retries of failed deliveries are counted by the worker.
 */
export const webhookQueue = {
  // Six times the worker's 30 s timeout (AWS's guidance): room for Lambda to retry a throttled batch before its
  // messages come back and go to a second worker.
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 8,
  deadLetterRetentionDays: 14,
} as const;

/**
 * How the worker delivers (its environment): a POST may take 5 s; 8 attempts in all, the second after 30 s and each
 * later one after twice the delay before (at most 15 minutes), about 40 minutes from the first to the last.
 */
export const webhookDelivery = {
  timeoutMs: 5_000,
  maxAttempts: 8,
  retryBaseSeconds: 30,
  functionTimeoutSeconds: 30,
} as const;

export interface QueueConsumer {
  readonly handler: string;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  /** Most concurrent invocations the event source may start (SQS's minimum is 2). */
  readonly maxConcurrency: number;
  readonly access: Access;
}

/** Functions fed by the webhook queue. */
export const webhookConsumers: readonly QueueConsumer[] = [
  {
    handler: 'events/deliver-webhooks',
    batchSize: 10,
    maxBatchingWindowSeconds: 1,
    // The API's functions share the account's concurrency (1,000 by default) with the workers, and a backlog would
    // otherwise scale the worker into hundreds. Webhooks may wait: 10 batches of 10 at a time keep up with the
    // stage's 100 requests per second at a second a batch, and a backlog drains without costing a login.
    maxConcurrency: 10,
    access: {
      // A webhook is encrypted to, and signed for, the keys of the entity that receives it. The answer's
      // announcement mark is cleared once its event is here (shared/store/announcements.ts).
      ...table(['authRequest', 'organization', 'directory', 'service', 'device'], ['authRequest']),
      apiKeys: true,
      hashKey: true,
      webhookDelivery: true,
    },
  },
];

/**
 * The push queue, like the webhook queue. A push is worth little late, so its retries are quick and few; a message
 * that announces a request's end may wait in the queue for the request's whole lifetime (at most 600 s, under SQS's
 * 900 s delay).
 */
export const pushQueue = {
  // Six times the worker's 30 s timeout, as for the webhook queue.
  visibilityTimeoutSeconds: 180,
  maxReceiveCount: 8,
  deadLetterRetentionDays: 14,
} as const;

/**
 * How the push worker delivers (its environment): a push may take 5 s; 5 attempts in all, the second after 2 s and
 * each later one after twice the delay before (a push service's Retry-After wins when it asks for longer).
 */
export const pushDelivery = {
  timeoutMs: 5_000,
  maxAttempts: 5,
  retryBaseSeconds: 2,
  functionTimeoutSeconds: 30,
} as const;

/** Functions fed by the push queue. */
/**
 * The announcement sweep (shared/events/announcement-sweep.ts): every minute, the events of answers whose sender died
 * between the answer's write and its send go to the webhook queue again. It reads and claims answered requests,
 * through the table's announcement index too, and sends to the webhook queue.
 */
export const announcementSweep = {
  handler: 'events/sweep-announcements',
  intervalSeconds: 60,
  timeoutSeconds: 30,
  access: {
    ...table(['authRequest'], ['authRequest']),
    webhookQueue: true,
  } satisfies Access,
} as const;

export const pushConsumers: readonly QueueConsumer[] = [
  {
    handler: 'events/deliver-pushes',
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    // A login waits for its push: twice the webhooks' share, still a small part of the account's concurrency.
    maxConcurrency: 20,
    // Table writes: a gone channel is removed, each delivered push is recorded so that a redelivery skips it, and
    // each push is counted in its organization's health.
    access: {
      ...table(['authRequest', 'directory'], ['authRequest', 'directory', 'health']),
      hashKey: true,
      vapidKeys: true,
      pushDelivery: true,
    },
  },
];

/** A stable identifier for a queue consumer: `events/deliver-webhooks` → `EventsDeliverWebhooks`. */
export function consumerId(consumer: Pick<QueueConsumer, 'handler'>): string {
  const words = consumer.handler.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/** A stable identifier for a route, used for CDK construct ids and logs: `GET /public/v3/ping` → `GetPublicV3Ping`. */
export function routeId(route: { readonly method: HttpMethod | 'ANY'; readonly path: string }): string {
  const words = [route.method.toLowerCase(), ...route.path.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/** A throttle API Gateway applies to one route, across all its callers: steady requests per second and burst. */
export interface RouteThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Tighter throttles than the stage's for the unsigned routes, by route key (`METHOD path`). No signature stands in
 * front of these, so a flood of them must not use up the capacity the signed logins share: each gets a small share,
 * sized for what legitimate callers do (an SDK fetches the API key and the clock once per client, a person links a
 * device or shows a QR code once, a page loads a few assets).
 */
export const routeThrottles: Readonly<Record<string, RouteThrottle>> = {
  'GET /public/v3/ping': { rateLimit: 20, burstLimit: 40 },
  'GET /public/v3/public-key': { rateLimit: 20, burstLimit: 40 },
  'GET /public/v3/public-key/{kid}': { rateLimit: 20, burstLimit: 40 },
  'GET /public/v3/icons/service.svg': { rateLimit: 10, burstLimit: 20 },
  // Any well-formed code has an image, made without the store: a flood costs only the encoding.
  'GET /public/v3/qrcodes/{code}': { rateLimit: 10, burstLimit: 20 },
  'GET /public/v3/openapi.json': { rateLimit: 5, burstLimit: 10 },
  'GET /v1/ping': { rateLimit: 10, burstLimit: 20 },
  'GET /v1/poll': { rateLimit: 20, burstLimit: 40 },
  // Besides the failed attempts a link counts per address, directory and code: at 5 a second, all callers together
  // get at most 18 000 guesses in the hour a code may live, against 2^40 codes.
  'POST /device/v3/link': { rateLimit: 5, burstLimit: 10 },
  'GET /authenticator': { rateLimit: 10, burstLimit: 20 },
  'GET /authenticator/{proxy+}': { rateLimit: 30, burstLimit: 60 },
  'GET /console': { rateLimit: 10, burstLimit: 20 },
  'GET /console/{file}': { rateLimit: 30, burstLimit: 60 },
  // People at a console: a few requests a screen; sign-ins are counted per account and address besides.
  'ANY /console/api/{proxy+}': { rateLimit: 20, burstLimit: 40 },
  'ANY /console/api/audit/{proxy+}': { rateLimit: 5, burstLimit: 10 },
};
