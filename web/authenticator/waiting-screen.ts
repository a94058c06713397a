import { Authenticator, ApiRequestError, browserDeviceKeys } from '#shared/authenticator/index';
import { pageFetch } from './answer.ts';
import type { WebDeviceState } from './device-state.ts';
import { h, notice } from './dom.ts';
import { liveTime } from './live-time.ts';
import { forgetLinked, indexedDbStateStore } from './state-store.ts';
import { answerProblem, waitingWords } from './words.ts';

/** Often enough that the new device moves on soon after the tap on the other one; a read costs the service little. */
const pollMs = 3_000;

export interface WaitingOutcome {
  /** The device is linked: its state, no longer awaiting, is stored. */
  linked(state: WebDeviceState): void;
  /** The user asks to start again after a refusal or the end of the wait: the device's keys are gone. */
  again(): void;
}

/**
 * The new device's screen while one of the user's linked devices has to allow it: reads how its link stands every few
 * seconds while the page is visible, and moves on when it is linked, or says it was refused or waited too long.
 */
export function renderWaiting(root: HTMLElement, state: WebDeviceState, outcome: WaitingOutcome): void {
  const device = new Authenticator(state, { keys: browserDeviceKeys, fetch: pageFetch });
  const expires = h('p', { class: 'muted' });
  const status = h('div', { 'aria-live': 'polite' });
  const heading = h('h2', { tabindex: '-1' }, waitingWords.heading);
  const section = h(
    'section',
    { class: 'card waiting', 'data-awaiting': state.deviceId },
    heading,
    h('p', {}, waitingWords.explain),
    expires,
    status,
  );
  root.replaceChildren(section);
  heading.focus();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;

  let shownUntil: string | undefined;
  const showExpiry = (until: string | undefined) => {
    if (!until || until === shownUntil) return;
    shownUntil = until;
    expires.replaceChildren(liveTime(new Date(until), waitingWords.expires));
  };

  /** `unlink`: remove what still waits at the service too; a refused device's key is gone already. */
  const end = async (words: string, unlink: boolean) => {
    ended = true;
    if (unlink) await device.unlink().catch(() => undefined);
    await indexedDbStateStore.delete(state.deviceId);
    // Never linked, so its keys are not "deleted by the browser" on the next screen.
    if ((await indexedDbStateStore.list()).length === 0) forgetLinked();
    const again = h('button', { type: 'button', class: 'primary' }, waitingWords.again);
    again.addEventListener('click', () => outcome.again());
    expires.replaceChildren();
    shownUntil = undefined;
    status.replaceChildren(notice(words, 'error'), h('p', {}, waitingWords.againHint), again);
    again.focus();
  };

  const check = async () => {
    timer = undefined;
    if (ended || !section.isConnected) return;
    if (document.visibilityState === 'visible') {
      try {
        const link = await device.linkState();
        if (link.status === 'linked') {
          ended = true;
          const { awaitingUntil: _, ...rest } = state;
          const linked: WebDeviceState = link.answers_from
            ? { ...rest, answersFrom: link.answers_from }
            : rest;
          await indexedDbStateStore.put(linked);
          outcome.linked(linked);
          return;
        }
        if (link.status === 'expired') return void (await end(waitingWords.expired, true));
        showExpiry(link.expires);
        status.replaceChildren();
      } catch (error) {
        // AUTH-002: the device's key no longer signs, which is what a refusal does to a waiting device.
        if (error instanceof ApiRequestError && error.status === 401)
          return void (await end(waitingWords.refused, false));
        status.replaceChildren(notice(answerProblem(error), 'error'));
      }
    }
    if (!ended && section.isConnected) timer = setTimeout(() => void check(), pollMs);
  };
  showExpiry(state.awaitingUntil);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && timer !== undefined) {
      clearTimeout(timer);
      void check();
    }
  });
  timer = setTimeout(() => void check(), pollMs);
}
