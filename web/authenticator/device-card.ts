import {
  Authenticator,
  type BrowserAuthenticatorState,
  browserDeviceKeys,
  type LinkRequestView,
  type PendingAuthRequestView,
} from '#shared/authenticator/index';
import { pageFetch } from './answer.ts';
import type { WebDeviceState } from './device-state.ts';
import { h, notice } from './dom.ts';
import { showList } from './keyed-list.ts';
import { linkRequestCard } from './link-request-card.ts';
import { forgetPasskey, unlinkedElsewhere } from './passkey.ts';
import { requestCard } from './request-card.ts';
import { indexedDbStateStore } from './state-store.ts';
import { liveTime } from './live-time.ts';
import { answerProblem, coolingOffWords } from './words.ts';

/** One linked device's card: new devices waiting to join, its pending request, its sessions, and unlinking. */
export interface DeviceCard {
  readonly element: HTMLElement;
  readonly deviceId: string;
  /**
   * Reads the pending requests again, and with `whole` (the default) the new devices waiting to join and the sessions
   * too; keeps what is on screen when nothing changed. Says whether the service answered.
   */
  refresh(whole?: boolean): Promise<boolean>;
  /** Whether the request is on this card. */
  shows(requestId: string): boolean;
}

export function deviceCard(initial: WebDeviceState, removed: () => void): DeviceCard {
  let state = initial;
  const device = () =>
    new Authenticator<BrowserAuthenticatorState>(state, { keys: browserDeviceKeys, fetch: pageFetch });
  const outcome = h('div', { 'aria-live': 'polite' });
  const trouble = h('div', { 'aria-live': 'polite' });
  const joining = h('div', { class: 'link-requests' });
  const requests = h('div', { class: 'requests' });
  const sessions = h('ul', { class: 'sessions' });
  const unlinkArea = h('div', { class: 'unlink' });
  /** Answered here: they leave the screen on the next read even while still in focus. */
  const answeredHere = new Set<string>();
  let shownSessions: string | undefined;

  const renderJoining = (waiting: LinkRequestView[]) =>
    showList(
      joining,
      waiting,
      {
        attribute: 'data-link-request',
        key: (request) => request.device_id,
        make: (request) =>
          linkRequestCard(request, {
            answer: (deviceId, approve) => device().answerLinkRequest(deviceId, approve),
            async answered(words) {
              answeredHere.add(request.device_id);
              outcome.replaceChildren(notice(words, 'success'));
              await card.refresh();
            },
          }),
      },
      answeredHere,
    );

  const renderRequests = (pending: PendingAuthRequestView[]) =>
    showList(
      requests,
      pending,
      {
        attribute: 'data-request',
        key: (request) => request.auth_request,
        make: (request) =>
          requestCard(request, {
            state: () => state,
            async answered(next, words) {
              answeredHere.add(request.auth_request);
              state = next;
              await indexedDbStateStore.put(next);
              outcome.replaceChildren(notice(words, 'success'));
              await card.refresh();
            },
          }),
        empty: () => h('p', { class: 'muted empty' }, 'No request is waiting.'),
      },
      answeredHere,
    );

  const renderSessions = (list: Awaited<ReturnType<Authenticator['sessions']>>) => {
    // Drawn again only when they changed: a read every few seconds must not take the focus off a Sign out button.
    const seen = list.map((session) => `${session.service_id}@${session.date_created}`).join();
    if (seen === shownSessions) return;
    shownSessions = seen;
    sessions.replaceChildren(
      ...(list.length
        ? list.map((session) => {
            const button = h(
              'button',
              { type: 'button', class: 'secondary', 'aria-label': `Sign out of ${session.service_name}` },
              'Sign out',
            );
            button.addEventListener('click', () => {
              button.disabled = true;
              device()
                .logout(session.service_id)
                .then(async () => {
                  outcome.replaceChildren(notice(`Signed out of ${session.service_name}.`, 'success'));
                  renderSessions(await device().sessions());
                })
                .catch((error: unknown) => {
                  button.disabled = false;
                  outcome.replaceChildren(notice(answerProblem(error), 'error'));
                });
            });
            return h(
              'li',
              { class: 'session' },
              h(
                'span',
                {},
                h('strong', {}, session.service_name),
                h('span', { class: 'muted' }, ' since ', liveTime(new Date(session.date_created))),
              ),
              button,
            );
          })
        : [h('li', { class: 'muted' }, 'Not signed in anywhere.')]),
    );
  };

  /** The read on its way, if any; and whether the person is unlinking, when the card reads no more. */
  let reading: Promise<boolean> | undefined;
  let unlinking = false;
  const unlinkButton = h('button', { type: 'button', class: 'secondary' }, 'Unlink this device');
  unlinkButton.addEventListener('click', () => {
    const confirm = h('button', { type: 'button', class: 'danger' }, 'Yes, unlink');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
    cancel.addEventListener('click', () => unlinkArea.replaceChildren(unlinkButton));
    confirm.addEventListener('click', () => {
      confirm.disabled = true;
      // No read starts from here on, and the one on its way ends before the key is gone.
      unlinking = true;
      Promise.resolve(reading)
        .then(() => device().unlink())
        .then(async () => {
          await indexedDbStateStore.delete(state.deviceId);
          await forgetPasskey(state.passkey);
          removed();
        })
        .catch((error: unknown) => {
          unlinking = false;
          confirm.disabled = false;
          unlinkArea.append(notice(answerProblem(error), 'error'));
        });
    });
    unlinkArea.replaceChildren(
      notice('This browser stops approving for this account. The service is told at once.'),
      confirm,
      cancel,
    );
    confirm.focus();
  });
  unlinkArea.append(unlinkButton);

  // Whom the device answers for, by name.
  const linkedTo = h('p', { class: 'linked-to' });
  const showLinkedTo = () => {
    const { directory, organization } = state;
    if (!directory || !organization) return;
    linkedTo.replaceChildren(
      'For ',
      h('strong', {}, directory.name),
      ' at ',
      h('strong', {}, organization.name),
    );
  };
  showLinkedTo();
  // A device stored before the service told names asks once, with the first whole read, so the line is there when the
  // card goes on screen rather than pushing its buttons down under a finger.
  let naming: Promise<void> | undefined =
    state.directory && state.organization
      ? undefined
      : device()
          .linkState()
          .then(async ({ directory, organization }) => {
            if (!directory || !organization) return;
            state = { ...state, directory, organization };
            await indexedDbStateStore.put(state);
            showLinkedTo();
          })
          .catch(() => undefined);

  const answersFrom = state.answersFrom ? new Date(state.answersFrom) : undefined;
  const coolingOff =
    answersFrom && answersFrom.getTime() > Date.now()
      ? notice([liveTime(answersFrom, coolingOffWords(answersFrom))])
      : undefined;
  const element = h(
    'section',
    { class: 'card', 'data-device': state.deviceId, 'aria-labelledby': `device-${state.deviceId}` },
    h('h2', { id: `device-${state.deviceId}` }, state.name),
    linkedTo,
    h(
      'p',
      { class: 'muted' },
      'Linked ',
      liveTime(new Date(state.linkedAt)),
      state.passkey ? ' · passkey' : ' · no passkey',
      state.pin ? ' · PIN' : '',
    ),
    coolingOff,
    outcome,
    trouble,
    joining,
    h('h3', {}, 'Requests'),
    requests,
    h('h3', {}, 'Signed in to'),
    sessions,
    unlinkArea,
  );

  let passkeyForgotten = false;
  const card: DeviceCard = {
    element,
    deviceId: state.deviceId,
    refresh(whole = true) {
      // Once the person unlinks, the device's key is going: a read now would only be refused.
      if (unlinking) return Promise.resolve(true);
      const current: Promise<boolean> = read(whole).finally(() => {
        if (reading === current) reading = undefined;
      });
      reading = current;
      return current;
    },
    shows: (requestId) => requests.querySelector(`[data-request="${requestId}"]`) !== null,
  };

  async function read(whole: boolean): Promise<boolean> {
    try {
      if (!whole) renderRequests(await device().pending());
      else {
        const [waiting, pending, list] = await Promise.all([
          device().linkRequests(),
          device().pending(),
          device().sessions(),
        ]);
        await naming;
        naming = undefined;
        renderJoining(waiting);
        renderRequests(pending);
        renderSessions(list);
      }
      trouble.replaceChildren();
      return true;
    } catch (error) {
      if (!passkeyForgotten && unlinkedElsewhere(error)) {
        // Once: the page keeps reading while it is open, and the passkey manager needs telling only the first time.
        passkeyForgotten = true;
        await forgetPasskey(state.passkey);
      }
      // What is shown stays (a blip must not lose a half-typed PIN); the problem is said once, not on every try.
      const words = answerProblem(error);
      if (trouble.textContent !== words) trouble.replaceChildren(notice(words, 'error'));
      return false;
    }
  }
  return card;
}
