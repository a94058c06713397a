import type middy from '@middy/core';
import { logger } from '#shared/log';

type Library = typeof import('#shared/tracing-library');
type Tracer = InstanceType<Library['Tracer']>;
type LambdaHandlerTracing = ReturnType<Library['captureLambdaHandler']>;
type TracingStep = NonNullable<LambdaHandlerTracing['before']>;

interface LoadedTracer {
  readonly tracer: Tracer;
  readonly handlerTracing: LambdaHandlerTracing;
}

/** Clients made before the tracer loaded, instrumented when it does. */
const waitingClients: object[] = [];
let loaded: LoadedTracer | undefined;
let loading: Promise<LoadedTracer> | undefined;

/**
 * Registers an AWS SDK v3 client for X-Ray: its calls become subsegments of the handler's once the tracer has loaded,
 * which happens in the pipeline's first `before`, so before the invocation's first call. Where nothing loads the
 * tracer (locally, in the tests, in the CLI), the client is left as it is, and not kept.
 */
export function traced<Client extends object>(client: Client): Client {
  if (loaded) loaded.tracer.captureAWSv3Client(client);
  else if (process.env.TRACER_MODULE) waitingClients.push(client);
  return client;
}

async function loadTracer(module: string): Promise<LoadedTracer> {
  const library = (await import(module)) as Library;
  // Outgoing HTTP stays untraced: webhook and push URLs are the customers' and may carry tokens, and X-Ray records
  // every URL it sees.
  const tracer = new library.Tracer({
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'mfa-authorization',
    captureHTTPsRequests: false,
  });
  for (const client of waitingClients.splice(0)) tracer.captureAWSv3Client(client);
  // The response holds signed, encrypted bodies: nothing a trace needs.
  loaded = { tracer, handlerTracing: library.captureLambdaHandler(tracer, { captureResponse: false }) };
  return loaded;
}

/** The tracer, loaded once; a failure is logged and the invocation runs untraced, the next one tries again. */
async function tracerFrom(module: string): Promise<LoadedTracer | undefined> {
  loading ??= loadTracer(module);
  try {
    return await loading;
  } catch (error) {
    loading = undefined;
    logger.error('The X-Ray tracer did not load; this invocation is not traced', { module, error });
    return undefined;
  }
}

/** `after` and `onError` close the segment `before` opened; where the tracer did not load, there is none. */
const step = (name: keyof LambdaHandlerTracing) => (request: middy.Request) =>
  loaded?.handlerTracing[name]?.(request as Parameters<TracingStep>[0]);

/**
 * An X-Ray segment around the handler (Powertools' captureLambdaHandler), in functions that run traced: those whose
 * `TRACER_MODULE` names the tracer's file beside their bundle (infra/route-function.ts). The tracer, about 125 KB,
 * is loaded there on the first invocation rather than bundled into every function, so an untraced start never
 * pays for it.
 */
export function tracing(): middy.MiddlewareObj {
  return {
    before: async (request) => {
      const module = process.env.TRACER_MODULE;
      if (!module) return;
      await (loaded ?? (await tracerFrom(module)))?.handlerTracing.before?.(
        request as Parameters<TracingStep>[0],
      );
    },
    after: step('after'),
    onError: step('onError'),
  };
}
