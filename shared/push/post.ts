import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from '#shared/webhooks/destination';

export interface PushPost {
  readonly destination: Destination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly timeoutMs: number;
}

export type PushPostOutcome =
  | { readonly answered: true; readonly status: number; readonly retryAfter: string | undefined }
  | { readonly answered: false; readonly reason: string };

/** Only the status and Retry-After matter; a push service's body is not read beyond this. */
const maxResponseBytes = 16 * 1024;

/**
 * POSTs to the checked address of a push endpoint (the URL's host name still names the TLS server and the Host
 * header), follows no redirect, and gives up after `timeoutMs` in all.
 */
export function postPush(request: PushPost): Promise<PushPostOutcome> {
  const { destination } = request;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
  const send = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: PushPostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = send(
      destination.url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(request.body.length) },
        lookup: pinned,
        agent: false,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const retryAfter = response.headers['retry-after'];
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) response.destroy();
        });
        response.on('close', () => settle({ answered: true, status, retryAfter }));
        response.resume();
      },
    );
    const timer = setTimeout(() => {
      settle({ answered: false, reason: `no answer within ${request.timeoutMs} ms` });
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle({ answered: false, reason: `the request failed: ${error.code ?? error.message}` });
    });
    outgoing.end(request.body);
  });
}

/** Retry-After in seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
