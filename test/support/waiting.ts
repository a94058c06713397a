/** Polls `probe` every 20 ms until it gives a value; fails with `failure()` after `timeoutMs`. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
  failure: () => string = () => 'timed out',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(failure());
}

/** What a stand-in server received that matches, once it has come; the failure says what the server refused. */
export function received<T>(
  items: readonly T[],
  match: (item: T) => boolean,
  timeoutMs: number,
  nothing: string,
  rejected: readonly string[],
): Promise<T> {
  return until(
    () => items.find(match),
    timeoutMs,
    () => `${nothing}; rejected: ${rejected.join('; ') || 'none'}`,
  );
}
