import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A signed request's jti is recorded while its use case makes its first reads, not before them: one round trip
 * fewer on every signed request's critical path. What keeps a replay from changing anything is this barrier: while a
 * use case runs under `afterFirstUse`, every store write and queue send first waits for the jti's record, and fails
 * with its error when the request is a replay or could not be recorded. Reads go ahead; the pipeline still answers a
 * replay with its refusal, whatever the use case found.
 */
const pending = new AsyncLocalStorage<Promise<void>>();

/** Runs `work` with every side effect it starts held until `firstUse` settles, and failed if it rejects. */
export function afterFirstUse<T>(firstUse: Promise<void>, work: () => Promise<T>): Promise<T> {
  return pending.run(firstUse, work);
}

/** What a store write or queue send awaits before it is sent: nothing outside a signed use case. */
export async function firstUseEstablished(): Promise<void> {
  await pending.getStore();
}
