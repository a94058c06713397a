import type { IncomingMessage } from 'node:http';

/**
 * The settings of an AWS SDK client that a request waits on (the store's, the queue's). Three attempts with the SDK's
 * standard backoff. Each attempt is cut off after 2 s: the SDK's handler only logs a warning when requestTimeout passes
 * unless throwOnRequestTimeout is set, so without it a store that accepts a connection and never answers would hold the
 * request until the function's timeout. Three attempts come to about 6.3 s, a 503 inside the functions' 10 s.
 */
export const inRequestClientConfig = () => ({
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true },
  streamCollector: collectResponseBody,
});

/**
 * A response's body as bytes, read by its data events. The SDK's own collector pipes the body into a Writable, which
 * costs about a tenth of a store round trip's CPU for a body of a few hundred bytes
 * (`npm run bench -- --only store-client`).
 */
export function collectResponseBody(body: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    body.on('error', reject);
  });
}
