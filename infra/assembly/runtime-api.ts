import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One invocation as the Runtime API hands it to a function's runtime client. */
export interface Invocation {
  readonly requestId: string;
  readonly payload: string;
  readonly deadlineMs: number;
  readonly functionArn: string;
  /** `Root=…;Parent=…;Sampled=1`: the trace the invocation's segments belong to. */
  readonly traceId: string;
}

/** What the runtime client reported for an invocation. */
export type InvocationOutcome =
  | { readonly kind: 'response'; readonly payload: string }
  | { readonly kind: 'error'; readonly payload: string; readonly errorType: string };

export interface RuntimeApi {
  /** `host:port`, as `AWS_LAMBDA_RUNTIME_API` gives it to the runtime client. */
  readonly address: string;
  /** Resolves when the runtime client first asks for work: its init is over. */
  readonly ready: Promise<void>;
  /** Hands an invocation to the waiting runtime client and resolves with what it reported. */
  invoke(invocation: Invocation): Promise<InvocationOutcome>;
  close(): Promise<void>;
}

const prefix = '/2018-06-01/runtime';

/**
 * Lambda's Runtime API for one execution environment, on a loopback port: the runtime client (aws-lambda-ric, as in
 * Lambda's Node runtime) long-polls `invocation/next`, then posts the invocation's response or error. An init error is
 * reported through `ready`.
 */
export async function startRuntimeApi(): Promise<RuntimeApi> {
  let waiting: ServerResponse | undefined;
  let pending: { invocation: Invocation; settle: (outcome: InvocationOutcome) => void } | undefined;
  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);

  function handOver(): void {
    if (!waiting || !pending) return;
    const { invocation } = pending;
    const response = waiting;
    waiting = undefined;
    response.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': invocation.requestId,
      'lambda-runtime-deadline-ms': String(invocation.deadlineMs),
      'lambda-runtime-invoked-function-arn': invocation.functionArn,
      'lambda-runtime-trace-id': invocation.traceId,
    });
    response.end(invocation.payload);
  }

  const server = createServer((request, response) => {
    void route(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '';
    const body = await readAll(request);
    if (request.method === 'GET' && path === `${prefix}/invocation/next`) {
      waiting = response;
      resolveReady();
      handOver();
      return;
    }
    if (request.method === 'POST' && path === `${prefix}/init/error`) {
      rejectReady(new Error(`The function's init failed: ${body}`));
      return accepted(response);
    }
    const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
    if (
      request.method === 'POST' &&
      match &&
      pending?.invocation.requestId === decodeURIComponent(match[1] ?? '')
    ) {
      const { settle } = pending;
      pending = undefined;
      settle(
        match[2] === 'response'
          ? { kind: 'response', payload: body }
          : {
              kind: 'error',
              payload: body,
              errorType: String(request.headers['lambda-runtime-function-error-type'] ?? 'Unhandled'),
            },
      );
      return accepted(response);
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ errorMessage: `No ${request.method} ${path} here`, errorType: 'InvalidRequestID' }),
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // The runtime client's long poll holds its connection open for as long as the container is idle.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 0;

  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    ready,
    invoke(invocation) {
      if (pending) throw new Error('An execution environment runs one invocation at a time');
      return new Promise((settle) => {
        pending = { invocation, settle };
        handOver();
      });
    },
    close: () => closeServer(server),
  };
}

function accepted(response: ServerResponse): void {
  response.writeHead(202, { 'content-type': 'application/json' });
  response.end('{"status":"OK"}');
}

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
