import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A signed operation's answer as it passes through the proxy. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export interface TamperingProxy {
  readonly baseUrl: string;
  close(): Promise<void>;
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A man in the middle between a client and the service: public endpoints pass unchanged, and every answer to a signed
 * operation is handed to `tamper` first, so a test can see whether the client notices.
 */
export async function startTamperingProxy(
  target: string,
  tamper: (answer: Answer) => Answer,
): Promise<TamperingProxy> {
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readAll(request);
      const forwarded = await fetch(`${target}${request.url}`, {
        method: request.method,
        headers: Object.fromEntries(
          ['authorization', 'content-type'].flatMap((name) => {
            const value = request.headers[name];
            return typeof value === 'string' ? [[name, value]] : [];
          }),
        ),
        ...(body.length > 0 ? { body } : {}),
      });
      const headers = Object.fromEntries(
        [...forwarded.headers].filter(([name]) => !['content-length', 'transfer-encoding'].includes(name)),
      );
      const received = {
        status: forwarded.status,
        headers,
        body: Buffer.from(await forwarded.arrayBuffer()),
      };
      const answer = request.url?.startsWith('/public/') ? received : tamper(received);
      response.writeHead(answer.status, answer.headers).end(answer.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
