import { h } from './dom.ts';
import { dismissStorageNote, storageNoteDismissed } from './state-store.ts';

/**
 * Safari deletes a site's storage after weeks unused unless it is on the home screen: say so, never fail silently. Said
 * after the requests, which need an answer first, and once dismissed not again.
 */
export async function storageNote(): Promise<HTMLElement | undefined> {
  if (storageNoteDismissed()) return undefined;
  const persisted = (await navigator.storage?.persist?.().catch(() => false)) ?? false;
  const installed = matchMedia('(display-mode: standalone)').matches;
  if (persisted || installed) return undefined;
  const dismiss = h('button', { type: 'button', class: 'secondary' }, 'Dismiss');
  const note = h(
    'section',
    { class: 'notice storage-note', 'aria-label': 'Keeping this page’s keys' },
    h(
      'p',
      {},
      'This browser may delete this page’s keys when it is short of space or the page goes unused for weeks. Add this page to your home screen to keep them.',
    ),
    dismiss,
  );
  dismiss.addEventListener('click', () => {
    dismissStorageNote();
    note.remove();
    document.querySelector<HTMLElement>('main')?.focus();
  });
  return note;
}
