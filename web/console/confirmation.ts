import { h, notice } from '../authenticator/dom.ts';
import { assertPasskey } from '../authenticator/webauthn-json.ts';
import { call } from './api.ts';
import { problem } from './words.ts';

interface ConfirmationOptions {
  readonly challenge: string;
  readonly rpId: string;
  readonly allowCredentials: readonly { readonly id: string }[];
}

/**
 * Asks the admin for their passkey again before a change that needs it (keys, unlinking, roles): a modal dialog says
 * why, and its button starts the passkey prompt (a tap of the person's own, which some browsers require for one).
 * Resolves true once the service took the passkey, false when the person cancelled.
 */
export function confirmWithPasskey(): Promise<boolean> {
  return new Promise((resolve) => {
    const status = h('div', { 'aria-live': 'polite' });
    const go = h('button', { type: 'button', class: 'primary' }, 'Confirm with passkey');
    const cancel = h('button', { type: 'button' }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'confirmation', 'aria-labelledby': 'confirmation-title' },
      h('h2', { id: 'confirmation-title' }, 'Confirm it is you'),
      h(
        'p',
        {},
        'This change needs your passkey again: it has been more than 5 minutes since you last gave it.',
      ),
      status,
      h('div', { class: 'actions' }, go, cancel),
    );
    let done = false;
    const finish = (confirmed: boolean) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      resolve(confirmed);
    };
    cancel.addEventListener('click', () => finish(false));
    dialog.addEventListener('cancel', () => finish(false));
    go.addEventListener('click', () => {
      void (async () => {
        go.disabled = true;
        status.replaceChildren(notice('Follow your browser’s passkey prompt…'));
        try {
          const options = await call<ConfirmationOptions>('POST', 'confirmation/options');
          const assertion = await assertPasskey({
            challenge: options.challenge,
            rp_id: options.rpId,
            allow_credentials: options.allowCredentials.map((each) => each.id),
          });
          await call('POST', 'confirmation', { assertion });
          finish(true);
        } catch (error) {
          status.replaceChildren(notice(problem(error, 'sign-in'), 'error'));
          go.disabled = false;
        }
      })();
    });
    document.body.append(dialog);
    dialog.showModal();
    go.focus();
  });
}
