import { h, notice } from '../authenticator/dom.ts';
import type { Screen } from './screen.ts';
import { refused } from './section.ts';

/** The question before a change: what it asks, its button, what to say once done, and the change itself. */
export interface ConfirmStep {
  readonly question: string;
  readonly label: string;
  readonly done: string;
  readonly act: () => Promise<unknown>;
  /** The button's look: `danger` for what takes something away (the default), `primary` for what grants. */
  readonly tone?: 'danger' | 'primary';
}

/**
 * Asks before a change, in `place` (which stays while the page reads again): the change runs once the person
 * confirms, the page says how it went, and `after` reads anew. Returns the function that asks.
 */
export function confirmStep(
  screen: Screen,
  place: HTMLElement,
  after: () => Promise<unknown>,
): (step: ConfirmStep) => void {
  return ({ question, label, done, act, tone = 'danger' }) => {
    const yes = h('button', { type: 'button', class: tone }, label);
    const no = h('button', { type: 'button' }, 'Cancel');
    const asked = h('p', { tabindex: -1 }, question);
    no.addEventListener('click', () => place.replaceChildren());
    yes.addEventListener('click', () => {
      yes.disabled = true;
      no.disabled = true;
      screen.notes.replaceChildren();
      act().then(
        async () => {
          if (!screen.current()) return;
          place.replaceChildren();
          screen.notes.replaceChildren(notice(done, 'success'));
          await after();
        },
        (error: unknown) => {
          place.replaceChildren();
          refused(screen, error);
        },
      );
    });
    place.replaceChildren(
      h(
        'div',
        { class: 'panel confirm', role: 'group', 'aria-label': 'Confirm' },
        asked,
        h('div', { class: 'actions' }, yes, no),
      ),
    );
    asked.focus();
  };
}
