/**
 * Faults injected into this process's AWS SDK clients, below the SDK's own retries and the service's mapping of
 * transient failures, so that everything above them runs as in production.
 */
export interface Fault {
  /** Calls still allowed to succeed before the fault begins. */
  passes: number;
  /** Calls to fail once it has begun; Infinity for a fault that lasts. */
  failures: number;
  /** Only commands whose name matches fail. */
  only?: RegExp;
  /** What each failing call throws. */
  error: () => Error;
  /** A failing call reaches the store and is applied; only its answer is lost, as when the connection drops after. */
  answerLost?: boolean;
}

type Stack = { add(middleware: unknown, options: Record<string, unknown>): void };

/** The engine refuses the connection, as when it is down. */
export const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

/** What the SDK's HTTP handler throws when requestTimeout passes without an answer. */
export const timedOut = () =>
  Object.assign(new Error('Connection timed out after 3000 ms'), { name: 'TimeoutError', code: 'ETIMEDOUT' });

/**
 * Adds a middleware to `client` that fails its calls as `current()` says at the time of each call (none when it
 * returns undefined), at every attempt the SDK makes.
 */
export function injectFaults(
  client: { middlewareStack: unknown },
  current: () => Fault | undefined,
  name: string,
) {
  const middleware =
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
    async (args: unknown) => {
      const fault = current();
      if (fault && (!fault.only || fault.only.test(context.commandName ?? ''))) {
        if (fault.passes > 0) fault.passes--;
        else if (fault.failures > 0) {
          fault.failures--;
          if (fault.answerLost) await next(args);
          throw fault.error();
        }
      }
      return next(args);
    };
  addMiddleware(client, middleware, { step: 'finalizeRequest', priority: 'low', name });
}

/**
 * Adds `middleware` to a client that may have sent already: a client that caches its commands' middleware
 * (cacheMiddleware) would go on without it, so its commands are resolved anew.
 */
export function addMiddleware(
  client: { middlewareStack: unknown },
  middleware: unknown,
  options: Record<string, unknown>,
): void {
  (client.middlewareStack as Stack).add(middleware, options);
  (client as { handlers?: unknown }).handlers = undefined;
}
