/**
 * The web authenticator's page: links this browser from a QR URL, then shows a card per linked device with its
 * pending request, its sessions and unlinking. It reads them every few seconds while it is visible (so a request shows
 * without a push), at once on load, on focus, when shown again, when the service worker relays a push, and when a
 * notification opens it on a request (`#request=<id>`).
 */
import { type DeviceCard, deviceCard } from './device-card.ts';
import { h, notice } from './dom.ts';
import { linkingCode, requestId } from './fragment.ts';
import { renderLinking } from './link.ts';
import { liveRefresh } from './live-refresh.ts';
import { passkeyPlaceHere, placeNotice } from './passkey.ts';
import { renewPush } from './push.ts';
import { everLinked, forgetLinked, hasKey, indexedDbStateStore } from './state-store.ts';
import { storageNote } from './storage-note.ts';
import { renderWaiting } from './waiting-screen.ts';
import { waitingWords } from './words.ts';

const root = document.getElementById('app');
let cards: DeviceCard[] = [];
/** How long a first read may keep the cards off screen before they show without it. */
const firstReadWaitMs = 1500;
/** Every read of the cards goes through it: one at a time, every few seconds while the page is visible. */
const live = liveRefresh(async (whole) => {
  const reached = await Promise.all(cards.map((card) => card.refresh(whole)));
  return reached.every(Boolean);
});

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

/** Draws the page again from what is stored; `said` is a notice to keep at the top of the new page. */
async function render(said?: HTMLElement): Promise<void> {
  if (!root) return;
  const code = linkingCode(location.hash);
  const heading = h('h1', {}, 'Web authenticator');
  const notes = h('div', { class: 'notes' }, said);
  const body = h('div');
  // What needs an answer comes first; the warning about storage after it.
  const later = h('div', { class: 'later' });
  root.replaceChildren(heading, notes, body, later);
  const place = passkeyPlaceHere();
  if (place) notes.append(placeNotice(place));
  if (code) {
    cards = [];
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
  if (note && usable.length) later.append(note);
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
  // The cards go on screen once their first read is in (or after a short wait for a slow one), so their lists and
  // names do not arrive afterwards and move the buttons a finger is on its way to.
  const firstRead = live.now();
  await Promise.race([firstRead, new Promise((settle) => setTimeout(settle, firstReadWaitMs))]);
  body.replaceChildren(
    ...(waiting ? [waitingArea] : []),
    h('div', { class: 'cards' }, ...cards.map((card) => card.element)),
  );
  await firstRead;
  showWanted();
  if (linked.length === 0) return;
  renewPush(linked).catch((error: unknown) =>
    notes.append(notice(`Notifications could not be renewed (${(error as Error).message}).`, 'error')),
  );
}

async function refresh(): Promise<void> {
  await live.now();
  showWanted();
}

/** Brings the request a notification opened the page on (`#request=<id>`) into view, or says it is gone. */
function showWanted(): void {
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
