import type { PendingAuthRequestView } from '#shared/authenticator/index';
import { needsLocation, plannedMethods, policyOf, sendAnswer } from './answer.ts';
import { pinMatches, type Verification, type WebDeviceState } from './device-state.ts';
import { field, h, notice } from './dom.ts';
import { assertPasskey, ceremonyProblem, userVerified } from './passkey.ts';
import { liveTime } from './live-time.ts';
import { answerProblem, denialWords, expiredWords, outcomeWords } from './words.ts';

/** The generic icon the service gives services without one: the page shows its own mark for them instead. */
const genericIconPath = '/public/v3/icons/service.svg';

/** The service's own icon, when it has one the page may load (the CSP allows this origin and data: URLs only). */
function iconSource(icon: string | null): string | undefined {
  if (!icon) return undefined;
  try {
    const url = new URL(icon, location.href);
    if (url.protocol === 'data:') return url.href;
    return url.origin === location.origin && !url.pathname.endsWith(genericIconPath) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The service's icon, or else its initial in a rounded square: a neutral mark, where a drawn symbol (a tick, say)
 * would read as an answer already given. Decorative either way: the service's name is its heading.
 */
function serviceMark(service: PendingAuthRequestView['service']): HTMLElement {
  const source = iconSource(service.icon);
  if (source) return h('img', { src: source, alt: '', width: 40, height: 40 });
  const initial = [...service.name.trim()][0]?.toLocaleUpperCase() ?? '?';
  return h('span', { class: 'service-mark', 'aria-hidden': 'true' }, initial);
}

export interface RequestCardHost {
  readonly state: () => WebDeviceState;
  /** Keeps the state after an answer, shows the outcome on the device's card and refreshes its list. */
  answered(state: WebDeviceState, outcome: string): Promise<void>;
}

const methodWords: Record<string, string> = {
  wearables: 'this device’s key',
  geofencing: 'your location',
  pin_code: 'your PIN',
  fingerprint: 'your passkey (screen lock or biometric)',
};

/** Where the browser is now, or why it cannot tell: a fence is about where the phone is, not where it was. */
function currentPosition(): Promise<GeolocationPosition> {
  return new Promise((resolve, reject) =>
    navigator.geolocation.getCurrentPosition(resolve, reject, { timeout: 15_000, maximumAge: 0 }),
  );
}

/** One pending request: who asks, what for, when, and the approve and deny actions with the factors it needs. */
export function requestCard(request: PendingAuthRequestView, host: RequestCardHost): HTMLElement {
  const expires = new Date(request.expires);
  const policy = policyOf(request);
  const status = h('div', { class: 'request-status', 'aria-live': 'polite' });
  const factors = h('p', { class: 'factors' });
  const inputs = h('div');
  let verification: Verification = {};
  let pinInput: HTMLInputElement | undefined;
  let codeInput: HTMLInputElement | undefined;

  if (request.number_match) {
    codeInput = field(
      'Code shown by the application',
      h('input', {
        type: 'text',
        inputmode: 'numeric',
        autocomplete: 'one-time-code',
        maxlength: 8,
        pattern: '[0-9]*',
        name: 'number-match',
      }),
      'To approve, type the number the application shows on its screen. To deny, you need no number.',
    ).input;
    inputs.append(codeInput.parentElement ?? codeInput);
  }

  const plan = () => {
    const { methods } = plannedMethods(host.state(), request, verification);
    factors.textContent = methods.size
      ? `You confirm with ${[...methods].map((name) => methodWords[name] ?? name).join(', ')}.`
      : '';
    if (methods.has('pin_code') && !pinInput) {
      pinInput = field(
        'PIN',
        h('input', {
          type: 'password',
          inputmode: 'numeric',
          autocomplete: 'current-password',
          maxlength: 12,
          name: 'pin',
        }),
      ).input;
      inputs.append(pinInput.parentElement ?? pinInput);
    }
  };
  plan();
  if (needsLocation(policy)) {
    status.replaceChildren(notice('Checking where you are: this request is limited to places.'));
    currentPosition()
      .then((position) => {
        verification = {
          location: { latitude: position.coords.latitude, longitude: position.coords.longitude },
          locationPermission: true,
        };
        status.replaceChildren();
      })
      .catch((error: GeolocationPositionError) => {
        verification = { locationPermission: error.code !== error.PERMISSION_DENIED };
        status.replaceChildren(
          notice(
            error.code === error.PERMISSION_DENIED
              ? 'Location is off for this page, and this request needs it. Allow location and reload to approve.'
              : 'Your location could not be found; approving may fail.',
            'error',
          ),
        );
      })
      .finally(plan);
  }

  const reasons = request.denial_reasons ?? [];
  const reasonsId = `reasons-${request.auth_request}`;
  // Focused when the reasons open, so a screen reader reads the question; no reason is chosen for the person.
  const legend = h('legend', { id: `${reasonsId}-legend`, tabindex: '-1' }, denialWords.question);
  const reasonProblem = h('div', { id: `${reasonsId}-problem` });
  const fraudExplained = h(
    'p',
    { class: 'notice error fraud-explained', id: `${reasonsId}-fraud`, hidden: true },
    denialWords.fraudExplained(request.service.name),
  );
  const reasonList = h(
    'fieldset',
    { class: 'reasons', id: reasonsId, 'aria-describedby': reasonProblem.id },
    legend,
    ...reasons.map((reason) =>
      h(
        'label',
        { class: 'choice' },
        h('input', {
          type: 'radio',
          name: `reason-${request.auth_request}`,
          value: reason.id,
          ...(reason.fraud ? { 'aria-describedby': fraudExplained.id } : {}),
        }),
        ` ${reason.reason}`,
        reason.fraud ? h('strong', { class: 'fraud' }, ` — ${denialWords.fraudMark}`) : '',
      ),
    ),
    reasonProblem,
  );
  const chosenReason = () => {
    const id = reasonList.querySelector<HTMLInputElement>('input:checked')?.value;
    return reasons.find((reason) => reason.id === id);
  };
  reasonList.addEventListener('change', () => {
    reasonProblem.replaceChildren();
    fraudExplained.hidden = !chosenReason()?.fraud;
  });
  const approve = h('button', { type: 'button', class: 'primary' }, 'Approve');
  const deny = h('button', { type: 'button', class: 'secondary' }, 'Deny');
  const sendDenial = h('button', { type: 'button', class: 'danger' }, 'Send denial');
  // The reasons, what reporting fraud does, and the send button together, after Approve: Tab goes from the chosen
  // reason straight to sending it.
  const denial = h(
    'div',
    { class: 'denial', hidden: true },
    reasonList,
    h('div', { 'aria-live': 'polite' }, fraudExplained),
    sendDenial,
  );

  /** The tap: quick checks, then the passkey ceremony before any await, then everything else. */
  const answer = (approving: boolean) => {
    if (Date.now() >= expires.getTime()) {
      status.replaceChildren(notice(`${expiredWords(expires)} Nothing was sent.`, 'error'));
      return;
    }
    const denialReason = approving ? undefined : chosenReason();
    if (!approving && reasons.length > 0 && !denialReason) {
      reasonProblem.replaceChildren(notice(denialWords.choose, 'error'));
      legend.focus();
      return;
    }
    // Only an approval needs the code: the user who did not start the sign-in never sees it, and must still deny.
    const code = approving ? codeInput?.value.trim() : undefined;
    if (approving && codeInput && !/^\d{1,8}$/.test(code ?? '')) {
      status.replaceChildren(notice('Type the code the application shows (digits only).', 'error'));
      codeInput.focus();
      return;
    }
    if (pinInput && pinInput.value === '') {
      status.replaceChildren(notice('Type your PIN.', 'error'));
      pinInput.focus();
      return;
    }
    const ceremony = request.webauthn ? assertPasskey(request.webauthn) : Promise.resolve(undefined);
    for (const button of [approve, deny, sendDenial]) button.disabled = true;
    status.replaceChildren(notice('Confirm with your screen lock…'));
    void ceremony
      .then(
        async (assertion) => {
          const state = host.state();
          const pinVerified = pinInput ? await pinMatches(state, pinInput.value) : undefined;
          if (pinVerified === false) {
            status.replaceChildren(notice('That PIN is not right. Nothing was sent; try again.', 'error'));
            pinInput?.focus();
            return;
          }
          const decision = approving
            ? ({ kind: 'approve' } as const)
            : {
                kind: 'deny' as const,
                ...(denialReason === undefined
                  ? {}
                  : { denialReason: { id: denialReason.id, fraud: denialReason.fraud } }),
              };
          status.replaceChildren(notice('Sending your answer…'));
          const sent = await sendAnswer(state, request, {
            decision,
            verification: {
              ...verification,
              ...(pinVerified === undefined ? {} : { pinVerified }),
              ...(assertion ? { passkeyVerified: userVerified(assertion) } : {}),
            },
            ...(code === undefined ? {} : { numberMatchCode: code }),
            ...(assertion ? { assertion } : {}),
          });
          await host.answered(
            sent.state,
            outcomeWords(sent.evaluation.type, sent.evaluation.reason, request.service.name),
          );
        },
        (error: unknown) => {
          status.replaceChildren(notice(ceremonyProblem(error), 'error'));
        },
      )
      .catch((error: unknown) => {
        status.replaceChildren(notice(answerProblem(error, expires), 'error'));
      })
      .finally(() => {
        for (const button of [approve, deny, sendDenial]) button.disabled = false;
      });
  };
  approve.addEventListener('click', () => answer(true));
  deny.addEventListener('click', () => {
    if (reasons.length === 0) return answer(false);
    denial.hidden = false;
    deny.hidden = true;
    legend.focus();
  });
  sendDenial.addEventListener('click', () => answer(false));

  const created = new Date(request.created);
  const times = h(
    'p',
    { class: 'muted times' },
    'Asked ',
    liveTime(created),
    ' · ',
    liveTime(expires, (words, passed) => (passed ? `expired ${words}` : `expires ${words}`)),
  );
  const actions = h('div', { class: 'actions' }, approve, deny);
  // Expired while shown: say so and offer nothing that cannot work, unless an answer is already on its way.
  times.addEventListener('passed', () => {
    if (approve.disabled) return;
    for (const part of [inputs, factors, actions, denial]) part.hidden = true;
    status.replaceChildren(notice('This request expired. Nothing was sent.', 'error'));
  });
  return h(
    'article',
    {
      class: 'request',
      id: `request-${request.auth_request}`,
      'data-request': request.auth_request,
      tabindex: '-1',
    },
    h(
      'header',
      { class: 'service' },
      serviceMark(request.service),
      h('div', {}, h('h3', {}, request.service.name), h('p', { class: 'muted' }, 'asks you to approve')),
    ),
    request.title ? h('p', { class: 'title' }, request.title) : undefined,
    request.context ? h('p', { class: 'context' }, request.context) : undefined,
    times,
    factors,
    inputs,
    actions,
    denial,
    status,
  );
}
