/** Often enough that a request shows within seconds of being made, with no push; a read costs the service little. */
const everyMs = 2_500;
/** The longest wait between tries while the service cannot be reached. */
const maxBackoffMs = 30_000;

export interface LiveRefresh {
  /** Reads now (after the read in flight, if any): on load, on focus, when a push or the person asks for it. */
  now(): Promise<void>;
  /** No more reads: the screen it kept up to date is gone. */
  stop(): void;
}

/**
 * Keeps an open page up to date by itself, so that a person who declined notifications still sees a new request
 * within seconds: `read` runs every few seconds while the page is visible, one at a time, waits longer after each
 * failure (doubling, with jitter, so that many pages coming back online do not all ask at once), rests while the page
 * is hidden or offline, and reads at once when the page is shown or back online (focus calls `now`). `read` says
 * whether it reached the service.
 */
export function liveRefresh(read: () => Promise<boolean>): LiveRefresh {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let failures = 0;
  let stopped = false;

  const delay = () => {
    if (failures === 0) return everyMs;
    const ceiling = Math.min(maxBackoffMs, everyMs * 2 ** failures);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!stopped && document.visibilityState === 'visible') timer = setTimeout(() => void now(), delay());
  };

  const start = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    running = (async () => {
      // Offline for sure: no read can succeed, so wait for `online` (or the next, longer, try).
      const reached = navigator.onLine === false ? false : await read().catch(() => false);
      failures = reached ? 0 : failures + 1;
    })().finally(() => {
      running = undefined;
      if (!queued) schedule();
    });
    return running;
  };

  function now(): Promise<void> {
    if (!running) return start();
    queued ??= running.then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  }

  const soon = () => {
    if (!stopped && document.visibilityState === 'visible' && !running) void now();
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') soon();
    else {
      clearTimeout(timer);
      timer = undefined;
    }
  });
  window.addEventListener('online', () => {
    failures = 0;
    soon();
  });
  return {
    now,
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
