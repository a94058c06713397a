/** Instruments the store client of this process, for benches; queue-calls.ts does the same for the queue. */
type Command = { constructor: { name: string } };
export type Send = (this: unknown, command: Command, ...rest: unknown[]) => Promise<unknown>;
/** Routes a client's sends through `wrap`; the function it returns puts the client back. */
export type SendHook = (wrap: (send: Send) => Send) => Promise<() => void>;

/** The handlers' store client (shared/store/dynamo.ts). */
export const storeClientHook: SendHook = async (wrap) => {
  const { dynamo } = await import('#shared/store/dynamo');
  const client = dynamo as unknown as { send: Send };
  const original = client.send;
  client.send = wrap(original);
  return () => {
    client.send = original;
  };
};

/** Runs `measure` and counts the commands the hooked client sent, by name. */
export async function counting<T>(
  hook: SendHook,
  measure: () => Promise<T>,
): Promise<{ result: T; calls: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const restore = await hook(
    (send) =>
      function (command, ...rest) {
        calls[command.constructor.name] = (calls[command.constructor.name] ?? 0) + 1;
        return send.call(this, command, ...rest);
      },
  );
  try {
    return { result: await measure(), calls };
  } finally {
    restore();
  }
}

/** A client's answers as they were recorded; see recording. */
export interface Recording {
  /** From now on every command is answered from the recording, in order and over again, and nothing is sent. */
  replay(): void;
  restore(): void;
}

/**
 * Records the hooked client's answers (and failures) in order until `replay()`, then answers every command with them
 * in turn, starting over at the end, without sending anything. Requests that make the same commands as the recorded
 * one (the same kind of request for the same target) see the store exactly as it answered it, so that a handler's
 * own cost can be told apart from its client's; a command out of step with the recording is an error.
 */
export async function recording(hook: SendHook): Promise<Recording> {
  const recorded: { name: string; answer?: unknown; error?: unknown }[] = [];
  let replaying = false;
  let next = 0;
  const restore = await hook(
    (send) =>
      async function (command, ...rest) {
        const name = command.constructor.name;
        if (!replaying) {
          // In the order the commands are sent, which replaying follows, not the order their answers came in.
          const entry: (typeof recorded)[number] = { name };
          recorded.push(entry);
          try {
            entry.answer = await send.call(this, command, ...rest);
            return entry.answer;
          } catch (error) {
            entry.error = error;
            throw error;
          }
        }
        const entry = recorded[next++ % recorded.length];
        if (entry?.name !== name)
          throw new Error(`${name} where the recording has ${entry?.name ?? 'nothing'}`);
        if ('error' in entry) throw entry.error;
        return entry.answer;
      },
  );
  return {
    replay() {
      replaying = true;
      next = 0;
    },
    restore,
  };
}

/** Runs `measure` and counts the store round trips it made, by command. */
export function countingStoreCalls<T>(
  measure: () => Promise<T>,
): Promise<{ result: T; calls: Record<string, number> }> {
  return counting(storeClientHook, measure);
}

/** Records the store's answers, to replay them: see recording. */
export function recordStoreAnswers(): Promise<Recording> {
  return recording(storeClientHook);
}

export function totalCalls(calls: Record<string, number>): number {
  return Object.values(calls).reduce((sum, count) => sum + count, 0);
}
