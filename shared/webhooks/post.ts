import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from '#shared/webhooks/destination';

/** A POST to an address the destination guard checked: a webhook receiver's, or a push service's. */
export interface CheckedPost {
  readonly destination: Destination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  readonly timeoutMs: number;
  /** How much of the answer is read before the connection is let go: only its status and headers matter. */
  readonly maxResponseBytes: number;
}

export type CheckedPostAnswer =
  | { readonly answered: true; readonly status: number; readonly headers: IncomingHttpHeaders }
  | { readonly answered: false; readonly reason: string };

/**
 * POSTs to the checked address (the URL's host name still names the TLS server and the Host header), follows no
 * redirect, and gives up after `timeoutMs` in all: connecting to the address that was checked, rather than resolving
 * the name again, is what keeps a changed DNS answer from sending the request elsewhere.
 */
export function postToCheckedAddress(request: CheckedPost): Promise<CheckedPostAnswer> {
  const { destination } = request;
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: destination.address, family: destination.family }]);
    else callback(null, destination.address, destination.family);
  };
  const send = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: CheckedPostAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
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
          if (received > request.maxResponseBytes) response.destroy();
        });
        response.on('close', () => settle({ answered: true, status, headers: response.headers }));
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

export interface WebhookRequest {
  readonly destination: Destination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export type PostOutcome =
  | { readonly delivered: true; readonly status: number }
  | { readonly delivered: false; readonly status?: number; readonly reason: string };

/** POSTs a webhook: a 2xx is delivered; anything else says why not. */
export async function postWebhook(request: WebhookRequest): Promise<PostOutcome> {
  const answer = await postToCheckedAddress({ ...request, maxResponseBytes: 64 * 1024 });
  if (!answer.answered) return { delivered: false, reason: answer.reason };
  const { status } = answer;
  return status >= 200 && status < 300
    ? { delivered: true, status }
    : { delivered: false, status, reason: `the receiver answered ${status}` };
}
