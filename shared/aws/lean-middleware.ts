/** The SDK's middleware stack, as every v3 client has it. */
interface MiddlewareStack {
  remove(name: string): boolean;
  add(
    middleware: (next: (args: unknown) => Promise<unknown>) => (args: unknown) => Promise<unknown>,
    options: { step: 'build'; name: string; priority: 'low'; tags: string[] },
  ): void;
}

/**
 * The user agent's middleware: removed for its CPU, but its name stays on the stack. Powertools' tracer
 * (`captureAWSv3Client`) adds its own user-agent middleware relative to this name, and a client without it throws on
 * every call once traced, which is every call in AWS.
 */
const userAgentMiddleware = 'getUserAgentMiddleware';

/**
 * Takes middleware off a client's stack, each of which must be there. The user agent's leaves a pass-through of the
 * same name and step in its place, for what anchors itself to it.
 */
export function removeMiddleware(
  client: { readonly middlewareStack: unknown },
  names: readonly string[],
  clientName: string,
): void {
  const stack = client.middlewareStack as MiddlewareStack;
  for (const name of names) {
    if (!stack.remove(name)) throw new Error(`The ${clientName} client has no ${name} to remove`);
    if (name === userAgentMiddleware) {
      stack.add((next) => next, { step: 'build', name, priority: 'low', tags: ['USER_AGENT'] });
    }
  }
}
