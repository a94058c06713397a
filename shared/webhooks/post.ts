import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from '#shared/webhooks/destination';

export interface WebhookRequest {
  readonly destination: Destination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export type PostOutcome =
  | { readonly delivered: true; readonly status: number }
  | { readonly delivered: false; readonly status?: number; readonly reason: string };

/** How much of a receiver's answer is read before the connection is let go: only its status matters. */
const maxResponseBytes = 64 * 1024;

/**
 * POSTs a webhook to the checked address (the URL's host name still names the TLS server and the Host header),
 * follows no redirect, and gives up after `timeoutMs` in all. A 2xx is delivered; anything else says why not.
 */
export function postWebhook(request: WebhookRequest): Promise<PostOutcome> {
  const { destination } = request;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
  const send = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = send(
      destination.url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: pinned,
        agent: false,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) response.destroy();
        });
        response.on('close', () => {
          settle(
            status >= 200 && status < 300
              ? { delivered: true, status }
              : { delivered: false, status, reason: `the receiver answered ${status}` },
          );
        });
        response.resume();
      },
    );
    const timer = setTimeout(() => {
      settle({ delivered: false, reason: `no answer within ${request.timeoutMs} ms` });
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle({ delivered: false, reason: `the request failed: ${error.code ?? error.message}` });
    });
    outgoing.end(request.body);
  });
}
