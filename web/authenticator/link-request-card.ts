import type { LinkRequestView } from '#shared/authenticator/index';
import { h, notice } from './dom.ts';
import { liveTime } from './live-time.ts';
import { joinProblem, joinWords, newDeviceName } from './words.ts';

export interface LinkRequestCardHost {
  /** Sends the answer (docs/protocol.md#device-confirmation); the service needs no passkey for it. */
  answer(deviceId: string, approve: boolean): Promise<void>;
  /** Says what happened on the device's card and refreshes its lists, which takes this card away. */
  answered(words: string): Promise<void>;
}

/**
 * A new device of the user waiting to be allowed: who it says it is, for which directory, since when. Refusing costs
 * the user nothing; allowing lets the device approve as the user, so Allow asks once more, with a warning.
 */
export function linkRequestCard(request: LinkRequestView, host: LinkRequestCardHost): HTMLElement {
  const status = h('div', { class: 'request-status', 'aria-live': 'polite' });
  const allow = h('button', { type: 'button', class: 'primary' }, joinWords.allow);
  const refuse = h('button', { type: 'button', class: 'secondary' }, joinWords.refuse);
  const actions = h('div', { class: 'actions' }, allow, refuse);
  const confirmAllow = h('button', { type: 'button', class: 'danger' }, joinWords.confirmAllow);
  const notNow = h('button', { type: 'button', class: 'secondary' }, joinWords.keepWaiting);
  const confirmation = h(
    'div',
    { class: 'confirm-allow', hidden: true },
    notice(joinWords.allowWarning),
    h('div', { class: 'actions' }, confirmAllow, notNow),
  );
  const buttons = [allow, refuse, confirmAllow, notNow];

  const send = (approve: boolean) => {
    for (const button of buttons) button.disabled = true;
    status.replaceChildren(notice('Sending your answer…'));
    host
      .answer(request.device_id, approve)
      .then(() => host.answered(approve ? joinWords.allowed(request.name) : joinWords.refused(request.name)))
      .catch((error: unknown) => {
        for (const button of buttons) button.disabled = false;
        status.replaceChildren(notice(joinProblem(error), 'error'));
      });
  };
  allow.addEventListener('click', () => {
    confirmation.hidden = false;
    actions.hidden = true;
    confirmAllow.focus();
  });
  notNow.addEventListener('click', () => {
    confirmation.hidden = true;
    actions.hidden = false;
    allow.focus();
  });
  confirmAllow.addEventListener('click', () => send(true));
  refuse.addEventListener('click', () => send(false));

  const requested = new Date(request.requested);
  const name = newDeviceName(request.name);
  return h(
    'article',
    { class: 'request link-request', 'data-link-request': request.device_id, tabindex: '-1' },
    h('h3', {}, joinWords.heading),
    h(
      'p',
      { class: 'title' },
      request.name ? `“${name}”` : name,
      request.type ? h('span', { class: 'muted' }, ` · ${request.type}`) : undefined,
    ),
    request.directory?.name ? h('p', { class: 'context' }, `For ${request.directory.name}`) : undefined,
    h(
      'p',
      { class: 'muted times' },
      'Asked ',
      liveTime(requested),
      ' · ',
      liveTime(new Date(request.expires), (words, passed) =>
        passed ? `expired ${words}` : `expires ${words}`,
      ),
    ),
    actions,
    confirmation,
    status,
  );
}
