import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';
import dynalite from 'dynalite';
import type { DynaliteError, Store } from 'dynalite/db';
import { ClientRequestTokens } from '#infra/local/client-request-tokens';
import { commitTransaction } from '#infra/local/transact-write-items-commit';
import { validateTransactWriteItems } from '#infra/local/transact-write-items-request';

const require = createRequire(import.meta.url);
const dbModule = require('dynalite/db') as { create: typeof import('dynalite/db').create };

const target = 'DynamoDB_20120810.TransactWriteItems';
/** dynalite's own bound on a request's body. */
const maxRequestBytes = 16 * 1024 * 1024;

/**
 * A dynalite server that also answers TransactWriteItems, which dynalite does not implement, on the same store, with
 * DynamoDB's idempotency by ClientRequestToken (client-request-tokens.ts): every other request goes to dynalite
 * untouched.
 */
export function dynaliteWithTransactions(options: Parameters<typeof dynalite>[0]): Server {
  const create = dbModule.create;
  let store: Store | undefined;
  // dynalite builds its store through the module object and keeps it private: catch it as it is made.
  dbModule.create = (settings) => (store = create(settings));
  let server: Server;
  try {
    server = dynalite(options);
  } finally {
    dbModule.create = create;
  }
  if (!store) throw new Error('dynalite did not create its store through dynalite/db');
  const transactions = { store, tokens: new ClientRequestTokens() };
  const [untouched] = server.listeners('request') as ((
    request: IncomingMessage,
    response: ServerResponse,
  ) => void)[];
  if (!untouched) throw new Error('dynalite has no request listener');
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST' && request.headers['x-amz-target'] === target) {
      // A client that goes away mid-request leaves nobody to answer.
      transactWriteItems(transactions, request, response).catch(() => response.destroy());
    } else untouched(request, response);
  });
  return server;
}

async function transactWriteItems(
  { store, tokens }: { readonly store: Store; readonly tokens: ClientRequestTokens },
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > maxRequestBytes) {
      response.statusCode = 413;
      response.end();
      return;
    }
    chunks.push(chunk);
  }
  const json = (request.headers['content-type'] ?? '').split(';')[0]?.trim() === 'application/json';
  const send = (status: number, data: object) => answer(response, json, status, data);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString());
  } catch {
    send(400, { __type: 'com.amazon.coral.service#SerializationException' });
    return;
  }
  try {
    const operations = await validateTransactWriteItems(body, store);
    const { ClientRequestToken: token, ...parameters } = body as { ClientRequestToken?: string };
    const reasons = await tokens.commitOnce(token, parameters, () => commitTransaction(store, operations));
    if (!reasons) {
      send(200, {});
      return;
    }
    send(400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map(({ Code }) => Code).join(', ')}]`,
      CancellationReasons: reasons,
    });
  } catch (error) {
    const known = error as DynaliteError;
    if (known.statusCode && known.body) send(known.statusCode, known.body);
    else {
      console.error('TransactWriteItems failed', error);
      send(500, {
        __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
        message: 'Internal server error',
      });
    }
  }
}

/** As dynalite answers, so that the SDK parses results and errors alike. */
function answer(response: ServerResponse, json: boolean, status: number, data: object): void {
  const body = JSON.stringify(data);
  response.statusCode = status;
  response.setHeader(
    'x-amzn-RequestId',
    randomBytes(39).toString('base64').toUpperCase().replace(/[+/]/g, '0'),
  );
  response.setHeader('x-amz-crc32', crc32(body));
  response.setHeader('Content-Type', json ? 'application/json' : 'application/x-amz-json-1.0');
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.end(body);
}
