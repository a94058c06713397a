/** Often enough that a request shows within seconds of being made, with no push, while someone uses the page. */
const everyMs = 2_500;
/**
 * Once nobody has touched the page for `idleAfterMs`: a page left open on a desk still shows a request within seconds,
 * at a quarter of the requests (each page's reads count against the stage's throttle and the edge's per-address rate).
 */
const idleEveryMs = 8_000;
const idleAfterMs = 120_000;
/** A timed read is of the requests alone; every `wholeEvery`th, and any read asked for, is of everything shown. */
const wholeEvery = 4;
/** The longest wait between tries while the service cannot be reached. */
const maxBackoffMs = 30_000;

export interface LiveRefresh {
  /** Reads everything now (after the read in flight, if any): on load, on focus, when a push or the person asks. */
  now(): Promise<void>;
  /** No more reads: the screen it kept up to date is gone. */
  stop(): void;
}

/**
 * Keeps an open page up to date by itself, so that a person who declined notifications still sees a new request
 * within seconds: `read` runs every few seconds while the page is visible, one at a time, waits longer after each
 * failure (doubling, with jitter, so that many pages coming back online do not all ask at once), rests while the page
 * is hidden or offline, and reads at once when the page is shown or back online (focus calls `now`); it reads less
 * often once nobody has touched the page for a while. `read` is told whether to read everything it shows or only the
 * requests, and says whether it reached the service.
 */
export function liveRefresh(read: (whole: boolean) => Promise<boolean>): LiveRefresh {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let failures = 0;
  let stopped = false;
  let ticks = 0;
  let touchedAt = Date.now();
  const touched = () => {
    touchedAt = Date.now();
  };

  const delay = () => {
    if (failures === 0) return Date.now() - touchedAt < idleAfterMs ? everyMs : idleEveryMs;
    const ceiling = Math.min(maxBackoffMs, everyMs * 2 ** failures);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!stopped && document.visibilityState === 'visible')
      timer = setTimeout(() => {
        if (!running) void start((ticks = (ticks + 1) % wholeEvery) === 0);
      }, delay());
  };

  const start = (whole: boolean): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    running = (async () => {
      // Offline for sure: no read can succeed, so wait for `online` (or the next, longer, try).
      const reached = navigator.onLine === false ? false : await read(whole).catch(() => false);
      failures = reached ? 0 : failures + 1;
    })().finally(() => {
      running = undefined;
      if (!queued) schedule();
    });
    return running;
  };

  function now(): Promise<void> {
    touched();
    if (!running) return start(true);
    queued ??= running.then(() => {
      queued = undefined;
      return start(true);
    });
    return queued;
  }

  const soon = () => {
    if (!stopped && document.visibilityState === 'visible' && !running) void now();
  };
  for (const type of ['pointerdown', 'keydown'] as const)
    document.addEventListener(type, touched, { capture: true, passive: true });
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
