import { h } from '../authenticator/dom.ts';

const root = document.getElementById('app') as HTMLElement;
let drawn = 0;

/** One screen of the console, and whether it is still the one on show (a late answer must not draw over another). */
export interface Screen {
  readonly body: HTMLElement;
  readonly notes: HTMLElement;
  current(): boolean;
}

/**
 * Replaces the page with a new screen under its heading; the heading takes the focus so that a screen reader reads
 * where the person is now. `said` is a notice to show at the top.
 */
export function showScreen(title: string, said?: HTMLElement, ...header: Node[]): Screen {
  const number = ++drawn;
  const heading = h('h1', { tabindex: -1 }, title);
  const notes = h('div', { class: 'notes' }, said);
  const body = h('div', { class: 'screen' });
  root.replaceChildren(h('header', { class: 'top' }, heading, ...header), notes, body);
  document.title = `${title} · Console`;
  heading.focus();
  return { body, notes, current: () => number === drawn };
}
