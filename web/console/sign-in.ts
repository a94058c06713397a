import { h, notice } from '../authenticator/dom.ts';
import { assertPasskey } from '../authenticator/webauthn-json.ts';
import { call, type SessionView } from './api.ts';
import { showScreen } from './screen.ts';
import { problem } from './words.ts';

/** Options older than this are fetched again before the ceremony: the service keeps a challenge 5 minutes. */
const optionsFreshMs = 4 * 60_000;

interface RequestOptionsJson {
  readonly challenge: string;
  readonly rpId: string;
}

/**
 * Sign-in with any of this deployment's admin passkeys: the browser offers the ones it holds for this site. The
 * options are fetched before the button is tapped, so that the prompt follows the tap directly.
 */
export function renderSignIn(said: HTMLElement | undefined, signedIn: (session: SessionView) => void): void {
  const screen = showScreen('Sign in to the console', said);
  const status = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'primary' }, 'Sign in with a passkey');
  screen.body.append(
    h(
      'div',
      { class: 'panel' },
      h('p', {}, 'Sign in with the passkey you created from your invite.'),
      status,
      h('div', { class: 'actions' }, button),
    ),
  );

  let options: { json: RequestOptionsJson; at: number } | undefined;
  const fetchOptions = async () => {
    options = { json: await call<RequestOptionsJson>('POST', 'sign-in/options'), at: Date.now() };
  };
  fetchOptions().catch(() => undefined);

  button.addEventListener('click', () => {
    void (async () => {
      button.disabled = true;
      status.replaceChildren(notice('Follow your browser’s passkey prompt…'));
      try {
        if (!options || Date.now() - options.at > optionsFreshMs) await fetchOptions();
        const { challenge, rpId } = (options as { json: RequestOptionsJson }).json;
        const assertion = await assertPasskey({ challenge, rp_id: rpId, allow_credentials: [] });
        options = undefined;
        signedIn(await call<SessionView>('POST', 'sign-in', { assertion }));
      } catch (error) {
        if (!screen.current()) return;
        status.replaceChildren(notice(problem(error, 'sign-in'), 'error'));
        options = undefined;
        fetchOptions().catch(() => undefined);
      } finally {
        button.disabled = false;
      }
    })();
  });
}
