/**
 * The web authenticator's page: links this browser from a QR URL, then shows a card per linked device with its
 * pending request, its sessions and unlinking. It refreshes on load, on focus, when the service worker relays a push,
 * and when a notification opens it on a request (`#request=<id>`).
 */
import { type DeviceCard, deviceCard } from './device-card.ts';
import { h, notice } from './dom.ts';
import { linkingCode, requestId } from './fragment.ts';
import { renderLinking } from './link.ts';
import { passkeyPlaceHere, placeNotice } from './passkey.ts';
import { renewPush } from './push.ts';
import { everLinked, forgetLinked, hasKey, indexedDbStateStore } from './state-store.ts';
import { renderWaiting } from './waiting-screen.ts';
import { waitingWords } from './words.ts';

const root = document.getElementById('app');
let cards: DeviceCard[] = [];

async function registerServiceWorker(): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  try {
    await navigator.serviceWorker.register(new URL('./sw.js', document.baseURI), {
      scope: './',
      type: 'classic',
    });
  } catch (error) {
    console.warn('The service worker could not be registered', error);
  }
}

/** Safari deletes a site's storage after weeks unused unless it is on the home screen: say so, never fail silently. */
async function storageNote(): Promise<HTMLElement | undefined> {
  const persisted = (await navigator.storage?.persist?.().catch(() => false)) ?? false;
  const installed = matchMedia('(display-mode: standalone)').matches;
  if (persisted || installed) return undefined;
  return notice(
    'This browser may delete this page’s keys when it is short of space or the page goes unused for weeks. Add this page to your home screen to keep them.',
  );
}

/** Draws the page again from what is stored; `said` is a notice to keep at the top of the new page. */
async function render(said?: HTMLElement): Promise<void> {
  if (!root) return;
  const code = linkingCode(location.hash);
  const heading = h('h1', {}, 'Web authenticator');
  const notes = h('div', { class: 'notes' }, said);
  const body = h('div');
  root.replaceChildren(heading, notes, body);
  const place = passkeyPlaceHere();
  if (place) notes.append(placeNotice(place));
  if (code) {
    renderLinking(body, code, () => void render());
    return;
  }
  const stored = await indexedDbStateStore.list();
  const usable = stored.filter(hasKey);
  for (const broken of stored.filter((state) => !hasKey(state))) {
    notes.append(
      notice(
        `The key of “${broken.name}” is gone from this browser, so it cannot approve any more. Link this browser again from a new QR code.`,
        'error',
      ),
    );
    await indexedDbStateStore.delete(broken.deviceId);
  }
  if (stored.length === 0 && everLinked()) {
    notes.append(
      notice(
        'This browser deleted the keys of the devices linked here. Link it again from a new QR code; to keep them, add this page to your home screen.',
        'error',
      ),
    );
    forgetLinked();
  }
  const note = await storageNote();
  if (note && usable.length) notes.append(note);
  // A device still waiting for the user's other device to allow it may sign nothing else: it shows its wait alone.
  const waiting = usable.find((state) => state.awaitingUntil);
  const waitingArea = h('div');
  if (waiting)
    renderWaiting(waitingArea, waiting, {
      linked: () => void render(notice(waitingWords.linked, 'success')),
      again: () => void render(),
    });
  const linked = usable.filter((state) => !state.awaitingUntil);
  if (usable.length === 0) {
    body.replaceChildren(
      h('p', { class: 'status', role: 'status' }, 'No device linked yet'),
      h('p', {}, 'Scan the QR code the application shows to link this browser.'),
    );
    cards = [];
    return;
  }
  cards = linked.map((state) =>
    deviceCard(state, () => {
      cards = cards.filter((card) => card.deviceId !== state.deviceId);
      if (cards.length === 0) forgetLinked();
      void render(notice(`“${state.name}” is unlinked. Its keys are deleted from this browser.`, 'success'));
    }),
  );
  body.replaceChildren(
    ...(waiting ? [waitingArea] : []),
    h('div', { class: 'cards' }, ...cards.map((card) => card.element)),
  );
  await refresh();
  if (linked.length === 0) return;
  renewPush(linked).catch((error: unknown) =>
    notes.append(notice(`Notifications could not be renewed (${(error as Error).message}).`, 'error')),
  );
}

async function refresh(): Promise<void> {
  await Promise.all(cards.map((card) => card.refresh()));
  const wanted = requestId(location.hash);
  if (!wanted) return;
  const card = cards.find((each) => each.shows(wanted));
  const target = card?.element.querySelector<HTMLElement>(`[data-request="${wanted}"]`);
  if (target) {
    target.focus();
    target.scrollIntoView({ block: 'start' });
  } else if (root) {
    root
      .querySelector('.notes')
      ?.append(notice('That request is no longer waiting: it was answered, cancelled, or it expired.'));
  }
  history.replaceState(null, '', location.pathname);
}

/** Set once the first screen is drawn and usable: what `npm run bench`'s web section times on a throttled phone. */
const firstScreenMark = 'authenticator:first-screen';

void registerServiceWorker();
void render().finally(() => performance.mark(firstScreenMark));
window.addEventListener('focus', () => void refresh());
window.addEventListener('hashchange', () => void (linkingCode(location.hash) ? render() : refresh()));
navigator.serviceWorker?.addEventListener('message', (event: MessageEvent<{ type?: string }>) => {
  if (event.data?.type === 'push' || event.data?.type === 'open') void refresh();
});
