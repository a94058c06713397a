/** Instruments the store client of this process, for benches. */
type Send = (command: { constructor: { name: string } }) => Promise<unknown>;

async function withSend<T>(wrap: (send: Send) => Send, measure: () => Promise<T>): Promise<T> {
  const { dynamo } = await import('#shared/store/dynamo');
  const original = dynamo.send.bind(dynamo) as unknown as Send;
  (dynamo as unknown as { send: Send }).send = wrap(original);
  try {
    return await measure();
  } finally {
    (dynamo as unknown as { send: Send }).send = original;
  }
}

/** Runs `measure` and counts the store round trips it made, by command. */
export async function countingStoreCalls<T>(
  measure: () => Promise<T>,
): Promise<{ result: T; calls: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const result = await withSend(
    (send) => (command) => {
      calls[command.constructor.name] = (calls[command.constructor.name] ?? 0) + 1;
      return send(command);
    },
    measure,
  );
  return { result, calls };
}

/**
 * Runs `measure` while the store client answers each kind of command with the first real answer it got for it, so the
 * pipeline's own cost can be told apart from the store client's. Correct for request shapes whose answers never
 * change (the issuer's keys) or do not matter (a new jti's put).
 */
export async function replayingStoreAnswers<T>(measure: () => Promise<T>): Promise<T> {
  const answers = new Map<string, unknown>();
  return withSend(
    (send) => async (command) => {
      const name = command.constructor.name;
      if (!answers.has(name)) answers.set(name, await send(command));
      return answers.get(name);
    },
    measure,
  );
}

export function totalCalls(calls: Record<string, number>): number {
  return Object.values(calls).reduce((sum, count) => sum + count, 0);
}
