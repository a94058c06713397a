import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

/** A POST to a push service the settings name (not an address a device supplied), whose answer's body matters. */
export interface ServicePost {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** A PEM certificate trusted besides the default roots: a TLS-inspecting proxy's, or a local stand-in's. */
  readonly ca?: string | undefined;
}

export type ServiceAnswer =
  | {
      readonly answered: true;
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      /** At most `maxServiceAnswerBytes`: a longer answer is cut there. */
      readonly body: string;
    }
  | { readonly answered: false; readonly reason: string };

/** How much of an answer is read: push services' answers, errors included, are a few hundred bytes. */
export const maxServiceAnswerBytes = 16 * 1024;

// One agent per trust setting, kept across providers (the worker makes one per message) so connections are reused.
const agents = new Map<string, HttpAgent>();

function agentFor(url: URL, ca: string | undefined): HttpAgent {
  const key = `${url.protocol}${ca ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent =
      url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, ...(ca === undefined ? {} : { ca: [...rootCertificates, ca] }) })
        : new HttpAgent({ keepAlive: true });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * POSTs with `node:https`, which takes extra trusted roots without a second copy of undici, follows no redirect, and
 * gives up after `timeoutMs` in all, reading the answer included.
 */
export function postToService(post: ServicePost): Promise<ServiceAnswer> {
  const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: ServiceAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const outgoing = send(
      post.url,
      {
        method: 'POST',
        headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
        agent: agentFor(post.url, post.ca),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let received = 0;
        const done = () =>
          settle({
            answered: true,
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).subarray(0, maxServiceAnswerBytes).toString('utf8'),
          });
        response.on('data', (chunk: Buffer) => {
          if (received < maxServiceAnswerBytes) chunks.push(chunk);
          received += chunk.length;
          if (received > maxServiceAnswerBytes) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        // After `end` (or a cut) this settles nothing; before it, the connection dropped mid-answer.
        response.on('close', () => settle({ answered: false, reason: 'the answer broke off' }));
        response.on('error', () => settle({ answered: false, reason: 'the answer broke off' }));
      },
    );
    const timer = setTimeout(() => {
      settle({ answered: false, reason: `no answer within ${post.timeoutMs} ms` });
      outgoing.destroy();
    }, post.timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle({ answered: false, reason: `the request failed: ${error.code ?? error.message}` });
    });
    outgoing.end(post.body);
  });
}
