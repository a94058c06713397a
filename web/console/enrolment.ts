import { field, h, notice } from '../authenticator/dom.ts';
import { type CreationOptionsJson, createPasskey } from '../authenticator/webauthn-json.ts';
import { maxAdminNameLength } from '#shared/domain/console-admin';
import { call } from './api.ts';
import { showScreen } from './screen.ts';
import { problem } from './words.ts';

/** Options older than this are fetched again before the ceremony: the service keeps a challenge 5 minutes. */
const optionsFreshMs = 4 * 60_000;

/** The invite's token in the page's fragment (`#invite=<token>`), which no server or Referer ever sees. */
export function inviteToken(fragment: string): string | undefined {
  return new URLSearchParams(fragment.replace(/^#/, '')).get('invite') ?? undefined;
}

/**
 * Enrolment from an invite: the options are asked for at once, so that an invite that cannot be used says so before
 * anyone types, and so that the passkey prompt follows the tap directly (Safari refuses it otherwise).
 */
export function renderEnrolment(invite: string, enrolled: (said: HTMLElement) => void): void {
  const screen = showScreen('Join the console');
  const status = h('div', { 'aria-live': 'polite' });
  const name = field(
    'Your name',
    h('input', {
      type: 'text',
      name: 'name',
      autocomplete: 'name',
      maxlength: maxAdminNameLength,
      required: true,
    }),
    'Shown to the other admins and in the audit trail.',
  );
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create passkey');
  const form = h(
    'form',
    { class: 'panel', novalidate: true },
    h(
      'p',
      {},
      'You were invited to the console. Name yourself and create a passkey on this device to sign in with.',
    ),
    name.wrapper,
    h('div', { class: 'actions' }, create),
  );
  screen.body.append(status, form);

  let options: { json: CreationOptionsJson; at: number } | undefined;
  const refused = (error: unknown) => {
    status.replaceChildren(notice(problem(error, 'enrolment'), 'error'));
  };
  const fetchOptions = async () => {
    options = {
      json: await call<CreationOptionsJson>('POST', 'enrolment/options', { invite }),
      at: Date.now(),
    };
  };
  fetchOptions().catch((error: unknown) => {
    if (!screen.current()) return;
    refused(error);
    form.hidden = true;
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      const person = name.input.value.trim();
      if (!person) {
        name.input.setAttribute('aria-invalid', 'true');
        status.replaceChildren(notice('Enter your name first.', 'error'));
        name.input.focus();
        return;
      }
      name.input.removeAttribute('aria-invalid');
      create.disabled = true;
      status.replaceChildren(notice('Follow your browser’s passkey prompt…'));
      try {
        if (!options || Date.now() - options.at > optionsFreshMs) await fetchOptions();
        const registration = await createPasskey((options as { json: CreationOptionsJson }).json);
        options = undefined;
        await call('POST', 'enrolment', { invite, name: person, registration });
        enrolled(notice('Your passkey is set up. Sign in with it now.', 'success'));
      } catch (error) {
        if (!screen.current()) return;
        refused(error);
        // A challenge is used once, whatever happened: the next try's options are fetched now, before its tap.
        options = undefined;
        fetchOptions().catch(() => undefined);
      } finally {
        create.disabled = false;
      }
    })();
  });
}
