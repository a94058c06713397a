import { relative, type Saying } from './time.ts';

const sayings = new WeakMap<HTMLTimeElement, { when: Date; say: Saying; passed: boolean }>();
/** Every second while a shown time is within this of now (seconds count there), else every `slowTickMs`. */
const secondsNear = 90_000;
const slowTickMs = 20_000;
let timer: ReturnType<typeof setTimeout> | undefined;

/**
 * A relative time that stays true on an open page: one timer rewrites the text of every such element still on the
 * page, so nothing around it is drawn again (a half-typed PIN stays). When its moment passes, the element fires a
 * bubbling `passed` event, which an expiring request listens for.
 */
export function liveTime(when: Date, say: Saying = (words) => words): HTMLTimeElement {
  const element = document.createElement('time');
  element.dateTime = when.toISOString();
  element.dataset.live = '';
  const now = Date.now();
  sayings.set(element, { when, say, passed: when.getTime() <= now });
  element.textContent = say(relative(when, now), when.getTime() <= now);
  tickSoon();
  return element;
}

function tickSoon(): void {
  if (timer === undefined) timer = setTimeout(tick, 1_000);
}

function tick(): void {
  timer = undefined;
  if (document.visibilityState !== 'visible') return;
  const now = Date.now();
  let near = false;
  let any = false;
  for (const element of document.querySelectorAll<HTMLTimeElement>('time[data-live]')) {
    const shown = sayings.get(element);
    if (!shown) continue;
    any = true;
    const at = shown.when.getTime();
    const passed = at <= now;
    const text = shown.say(relative(shown.when, now), passed);
    if (element.textContent !== text) element.textContent = text;
    if (Math.abs(at - now) < secondsNear) near = true;
    if (passed && !shown.passed) {
      shown.passed = true;
      element.dispatchEvent(new Event('passed', { bubbles: true }));
    }
  }
  // Nothing shown, nothing to keep true: the next liveTime starts the timer again.
  if (any) timer = setTimeout(tick, near ? 1_000 : slowTickMs);
}

// Hidden, the page lets its times rest; shown again, they are made true at once.
globalThis.document?.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  clearTimeout(timer);
  timer = undefined;
  tick();
});
