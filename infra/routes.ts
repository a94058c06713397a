/**
 * The one route table. The CDK stack makes a function, an integration and grants from each row; the local runtime
 * routes HTTP requests and queue messages with the same rows. Adding an endpoint is one handler file and one row.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function touches; the stack grants exactly this and nothing else. */
export interface Access {
  readonly table?: 'read' | 'write';
  /** Reads the API's private key ring: every function that signs responses or decrypts requests. */
  readonly apiKeys?: boolean;
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
  /** Verifies passkeys: carries the WebAuthn library as a file of its own beside its bundle, loaded on first use. */
  readonly webAuthn?: boolean;
}

export interface HttpRoute {
  readonly method: HttpMethod;
  /** API Gateway route path; `{name}` is a path parameter. */
  readonly path: string;
  /** Module under functions/, without extension, exporting `handler`. */
  readonly handler: string;
  readonly access: Access;
}

/** Every signed operation records its jti (a write) and signs its response with the API key. */
const signedAccess: Access = { table: 'write', apiKeys: true };

function signed(method: HttpMethod, path: string, handler: string, access: Access = {}): HttpRoute {
  return { method, path, handler, access: { ...signedAccess, ...access } };
}

function unsigned(method: HttpMethod, path: string, handler: string, access: Access): HttpRoute {
  return { method, path, handler, access };
}

/** Operations that announce what they did through the webhook queue. */
const publishes: Access = { webhookQueue: true };

/** Operations that start or end an auth request, which the user's devices hear about through the push queue. */
const pushes: Access = { pushQueue: true };

/** Operations that register or check a device's passkey. */
const passkeys: Access = { webAuthn: true };

export const httpRoutes: readonly HttpRoute[] = [
  unsigned('GET', '/public/v3/ping', 'public/ping', {}),
  unsigned('GET', '/public/v3/public-key', 'public/get-public-key', { table: 'read' }),
  unsigned('GET', '/public/v3/public-key/{kid}', 'public/get-public-key', { table: 'read' }),
  unsigned('GET', '/public/v3/icons/service.svg', 'public/get-service-icon', {}),
  unsigned('GET', '/public/v3/qrcodes/{code}', 'public/get-qr-code', { table: 'read' }),
  unsigned('GET', '/public/v3/openapi.json', 'public/get-openapi', {}),
  unsigned('GET', '/v1/ping', 'v1/ping', { table: 'read' }),
  // The v1 poll decrypts the service's secret with the API's key.
  unsigned('GET', '/v1/poll', 'v1/poll', { table: 'read', apiKeys: true }),

  signed('POST', '/organization/v3/directories', 'organization/create-directory'),
  signed('GET', '/organization/v3/directories', 'organization/list-directories'),
  signed('POST', '/organization/v3/directories/list', 'organization/list-directories-by-ids'),
  signed('PATCH', '/organization/v3/directories', 'organization/update-directory'),
  signed('POST', '/organization/v3/directory/keys', 'organization/add-directory-key'),
  signed('POST', '/organization/v3/directory/keys/list', 'organization/list-directory-keys'),
  signed('PATCH', '/organization/v3/directory/keys', 'organization/update-directory-key'),
  signed('DELETE', '/organization/v3/directory/keys', 'organization/remove-directory-key'),
  signed('POST', '/organization/v3/directory/sdk-keys', 'organization/generate-sdk-key'),
  signed('POST', '/organization/v3/directory/sdk-keys/list', 'organization/list-sdk-keys'),
  signed('DELETE', '/organization/v3/directory/sdk-keys', 'organization/remove-sdk-key'),

  signed('POST', '/organization/v3/services', 'organization/create-service'),
  signed('GET', '/organization/v3/services', 'organization/list-services'),
  signed('POST', '/organization/v3/services/list', 'organization/list-services-by-ids'),
  signed('PATCH', '/organization/v3/services', 'organization/update-service'),
  signed('POST', '/organization/v3/service/keys', 'organization/add-service-key'),
  signed('POST', '/organization/v3/service/keys/list', 'organization/list-service-keys'),
  signed('PATCH', '/organization/v3/service/keys', 'organization/update-service-key'),
  signed('DELETE', '/organization/v3/service/keys', 'organization/remove-service-key'),
  signed('POST', '/organization/v3/service/policy/item', 'organization/get-service-policy'),
  signed('PUT', '/organization/v3/service/policy', 'organization/set-service-policy'),
  signed('DELETE', '/organization/v3/service/policy', 'organization/remove-service-policy'),

  signed('POST', '/directory/v3/services', 'directory/create-service'),
  signed('GET', '/directory/v3/services', 'directory/list-services'),
  signed('POST', '/directory/v3/services/list', 'directory/list-services-by-ids'),
  signed('PATCH', '/directory/v3/services', 'directory/update-service'),
  signed('POST', '/directory/v3/service/keys', 'directory/add-service-key'),
  signed('POST', '/directory/v3/service/keys/list', 'directory/list-service-keys'),
  signed('PATCH', '/directory/v3/service/keys', 'directory/update-service-key'),
  signed('DELETE', '/directory/v3/service/keys', 'directory/remove-service-key'),
  signed('POST', '/directory/v3/service/policy/item', 'directory/get-service-policy'),
  signed('PUT', '/directory/v3/service/policy', 'directory/set-service-policy'),
  signed('DELETE', '/directory/v3/service/policy', 'directory/remove-service-policy'),

  signed('POST', '/service/v3/auths', 'service/create-auth-request', pushes),
  signed('GET', '/service/v3/auths/{auth_request}', 'service/get-auth-request'),
  signed('DELETE', '/service/v3/auths/{auth_request}', 'service/cancel-auth-request', pushes),
  signed('POST', '/service/v3/sessions', 'service/start-session'),
  signed('DELETE', '/service/v3/sessions', 'service/end-session'),
  signed('POST', '/service/v3/totp', 'service/verify-totp'),

  signed('POST', '/directory/v3/devices', 'directory/start-device-link'),
  signed('POST', '/directory/v3/devices/list', 'directory/list-devices'),
  signed('DELETE', '/directory/v3/devices', 'directory/unlink-device'),
  signed('POST', '/directory/v3/sessions/list', 'directory/list-sessions'),
  signed('DELETE', '/directory/v3/sessions', 'directory/end-sessions'),
  signed('POST', '/directory/v3/totp', 'directory/generate-totp'),
  signed('DELETE', '/directory/v3/totp', 'directory/remove-totp'),
  signed('POST', '/directory/v3/totp/item', 'directory/get-totp'),

  // The device API: this service's own, signed by the device's key (dev:<uuid>) once it has linked.
  unsigned('POST', '/device/v3/link', 'device/link', { table: 'write', ...publishes }),
  signed('GET', '/device/v3/auths', 'device/list-auth-requests'),
  signed('POST', '/device/v3/auths/{auth_request}', 'device/answer-auth-request', {
    ...publishes,
    ...pushes,
    ...passkeys,
  }),
  signed('GET', '/device/v3/sessions', 'device/list-sessions'),
  signed('DELETE', '/device/v3/sessions', 'device/end-session', publishes),
  signed('DELETE', '/device/v3/link', 'device/unlink'),
  signed('GET', '/device/v3/push', 'device/get-push'),
  signed('PUT', '/device/v3/push', 'device/register-push', { pushEndpoints: true }),
  signed('DELETE', '/device/v3/push', 'device/remove-push'),
  signed('POST', '/device/v3/passkey/options', 'device/passkey-options', passkeys),
  signed('PUT', '/device/v3/passkey', 'device/register-passkey', passkeys),
];

/** A web app served from its build: one function answers GET on each of its paths. */
export interface WebAppRoute {
  readonly handler: string;
  readonly access: Access;
  readonly paths: readonly string[];
}

/**
 * The web authenticator (web/authenticator/, built into .tmp/web/authenticator/): files of a page, not operations of
 * the API (no signature, no OpenAPI entry), so they stand apart from the operations' table. `{proxy+}` takes the rest
 * of the path, slashes included, as API Gateway's greedy parameter does; the handler serves only its build's files.
 */
export const webAppRoute: WebAppRoute = {
  handler: 'public/authenticator',
  access: {},
  // API Gateway routes `/authenticator/` to `/authenticator` (a route may not end in `/`), rawPath keeping the slash.
  paths: ['/authenticator', '/authenticator/{proxy+}'],
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
    access: { table: 'read', apiKeys: true, webhookDelivery: true },
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
export const pushConsumers: readonly QueueConsumer[] = [
  {
    handler: 'events/deliver-pushes',
    batchSize: 10,
    maxBatchingWindowSeconds: 0,
    // A login waits for its push: twice the webhooks' share, still a small part of the account's concurrency.
    maxConcurrency: 20,
    // Table writes: a gone channel is removed, and each delivered push is recorded so that a redelivery skips it.
    access: { table: 'write', apiKeys: true, pushDelivery: true },
  },
];

/** A stable identifier for a queue consumer: `events/deliver-webhooks` → `EventsDeliverWebhooks`. */
export function consumerId(consumer: Pick<QueueConsumer, 'handler'>): string {
  const words = consumer.handler.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}

/** A stable identifier for a route, used for CDK construct ids and logs: `GET /public/v3/ping` → `GetPublicV3Ping`. */
export function routeId(route: Pick<HttpRoute, 'method' | 'path'>): string {
  const words = [route.method.toLowerCase(), ...route.path.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}
