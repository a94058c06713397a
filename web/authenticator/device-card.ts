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
import { linkRequestCard } from './link-request-card.ts';
import { forgetPasskey, unlinkedElsewhere } from './passkey.ts';
import { requestCard } from './request-card.ts';
import { indexedDbStateStore } from './state-store.ts';
import { relative } from './time.ts';
import { answerProblem, coolingOffWords } from './words.ts';

/** One linked device's card: new devices waiting to join, its pending request, its sessions, and unlinking. */
export interface DeviceCard {
  readonly element: HTMLElement;
  readonly deviceId: string;
  /** Reads the pending requests and sessions again; keeps what is on screen when nothing changed. */
  refresh(): Promise<void>;
  /** Whether the request is on this card. */
  shows(requestId: string): boolean;
}

export function deviceCard(initial: WebDeviceState, removed: () => void): DeviceCard {
  let state = initial;
  const device = () =>
    new Authenticator<BrowserAuthenticatorState>(state, { keys: browserDeviceKeys, fetch: pageFetch });
  const outcome = h('div', { 'aria-live': 'polite' });
  const joining = h('div', { class: 'link-requests' });
  const requests = h('div', { class: 'requests' });
  const sessions = h('ul', { class: 'sessions' });
  const unlinkArea = h('div', { class: 'unlink' });
  let shown: string[] | undefined;
  let shownJoining: string[] | undefined;

  const renderJoining = (waiting: LinkRequestView[]) => {
    const ids = waiting.map((request) => request.device_id);
    if (shownJoining && ids.join() === shownJoining.join()) return;
    shownJoining = ids;
    joining.replaceChildren(
      ...waiting.map((request) =>
        linkRequestCard(request, {
          answer: (deviceId, approve) => device().answerLinkRequest(deviceId, approve),
          async answered(words) {
            outcome.replaceChildren(notice(words, 'success'));
            await card.refresh();
          },
        }),
      ),
    );
  };

  const renderRequests = (pending: PendingAuthRequestView[]) => {
    const ids = pending.map((request) => request.auth_request);
    if (shown && ids.join() === shown.join()) return;
    shown = ids;
    requests.replaceChildren(
      ...(pending.length
        ? pending.map((request) =>
            requestCard(request, {
              state: () => state,
              async answered(next, words) {
                state = next;
                await indexedDbStateStore.put(next);
                outcome.replaceChildren(notice(words, 'success'));
                await card.refresh();
              },
            }),
          )
        : [h('p', { class: 'muted empty' }, 'No request is waiting.')]),
    );
  };

  const renderSessions = (list: Awaited<ReturnType<Authenticator['sessions']>>) => {
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
                h('span', { class: 'muted' }, ` since ${relative(new Date(session.date_created))}`),
              ),
              button,
            );
          })
        : [h('li', { class: 'muted' }, 'Not signed in anywhere.')]),
    );
  };

  const unlinkButton = h('button', { type: 'button', class: 'secondary' }, 'Unlink this device');
  unlinkButton.addEventListener('click', () => {
    const confirm = h('button', { type: 'button', class: 'danger' }, 'Yes, unlink');
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Keep it');
    cancel.addEventListener('click', () => unlinkArea.replaceChildren(unlinkButton));
    confirm.addEventListener('click', () => {
      confirm.disabled = true;
      device()
        .unlink()
        .then(async () => {
          await indexedDbStateStore.delete(state.deviceId);
          await forgetPasskey(state.passkey);
          removed();
        })
        .catch((error: unknown) => {
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

  const answersFrom = state.answersFrom ? new Date(state.answersFrom) : undefined;
  const coolingOff =
    answersFrom && answersFrom.getTime() > Date.now() ? notice(coolingOffWords(answersFrom)) : undefined;
  const element = h(
    'section',
    { class: 'card', 'data-device': state.deviceId, 'aria-labelledby': `device-${state.deviceId}` },
    h('h2', { id: `device-${state.deviceId}` }, state.name),
    h(
      'p',
      { class: 'muted' },
      `Linked ${relative(new Date(state.linkedAt))} · directory ${state.directoryId.slice(0, 8)}`,
      state.passkey ? ' · passkey' : ' · no passkey',
      state.pin ? ' · PIN' : '',
    ),
    coolingOff,
    outcome,
    joining,
    h('h3', {}, 'Requests'),
    requests,
    h('h3', {}, 'Signed in to'),
    sessions,
    unlinkArea,
  );

  const card: DeviceCard = {
    element,
    deviceId: state.deviceId,
    async refresh() {
      try {
        const [waiting, pending, list] = await Promise.all([
          device().linkRequests(),
          device().pending(),
          device().sessions(),
        ]);
        renderJoining(waiting);
        renderRequests(pending);
        renderSessions(list);
      } catch (error) {
        if (unlinkedElsewhere(error)) await forgetPasskey(state.passkey);
        requests.replaceChildren(notice(answerProblem(error), 'error'));
        shown = undefined;
        joining.replaceChildren();
        shownJoining = undefined;
      }
    },
    shows: (requestId) => shown?.includes(requestId) ?? false,
  };
  return card;
}
