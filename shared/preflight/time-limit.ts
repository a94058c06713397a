/** A call that did not answer in time. Named as the SDK's own timeouts are, so the CLIs read it as AWS out of reach. */
export class NoAnswerError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Runs `call` with a signal that aborts it after `ms`, and gives up on it then even if the call ignores the signal
 * (as a mocked client does).
 */
export async function withinTime<T>(
  ms: number,
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new NoAnswerError(`${what}: no answer within ${ms / 1000} s`);
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
