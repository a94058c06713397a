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

export const httpRoutes: readonly HttpRoute[] = [
  unsigned('GET', '/public/v3/ping', 'public/ping', {}),
  unsigned('GET', '/public/v3/public-key', 'public/get-public-key', { table: 'read' }),
  unsigned('GET', '/public/v3/public-key/{kid}', 'public/get-public-key', { table: 'read' }),
  signed('GET', '/organization/v3/directories', 'organization/list-directories'),
  signed('POST', '/organization/v3/directories/list', 'organization/list-directories-by-ids'),
];

/** Requests that match no row: ARG-002 in a signed response under the signed prefixes, a plain 404 elsewhere. */
export const fallbackRoute: Pick<HttpRoute, 'handler' | 'access'> = {
  handler: 'fallback/unknown-route',
  access: signedAccess,
};

/** The webhook queue: how long a delivery attempt may hold a message, and how many receives before the DLQ. */
export const webhookQueue = {
  visibilityTimeoutSeconds: 60,
  maxReceiveCount: 8,
  deadLetterRetentionDays: 14,
} as const;

export interface QueueConsumer {
  readonly handler: string;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly access: Access;
}

/** Functions fed by the webhook queue (the webhook worker arrives with the events issue). */
export const webhookConsumers: readonly QueueConsumer[] = [];

/** A stable identifier for a route, used for CDK construct ids and logs: `GET /public/v3/ping` → `GetPublicV3Ping`. */
export function routeId(route: Pick<HttpRoute, 'method' | 'path'>): string {
  const words = [route.method.toLowerCase(), ...route.path.split(/[^A-Za-z0-9]+/)].filter(Boolean);
  return words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
}
