import { field, h } from '../authenticator/dom.ts';
import { call, type Method, type SessionView } from './api.ts';
import { acting, type FormNote, formNote, numberIn, textInput, wrapperOf } from './inputs.ts';
import { type ConfirmStep, confirmStep } from './confirm-step.ts';
import type { Screen } from './screen.ts';
import { may, refused } from './section.ts';

/** A directory's push credentials and limits as GET /console/api/directories/{id}/push shows them: never a key. */
interface PushView {
  readonly apns_certificate: string;
  readonly apns_token_key: string;
  readonly apns_uses: string;
  readonly fcm: string;
  readonly rate_limit: { readonly count: number; readonly window_seconds: number };
  readonly fraud_lock_seconds: number | null;
}

/** The server's bounds (shared/http/schemas/console-push.ts), as files: base64 of 18 KiB is its 24 KiB. */
const maxP12Bytes = 18 * 1024;
const maxServiceAccountBytes = 8 * 1024;

/**
 * The Push block of a directory's details: what its credentials push to, for every role that reads; uploads and
 * removals for roles that change directories; the APNs token key, rate limit and fraud lock for the operator.
 */
export function pushBlock(screen: Screen, session: SessionView, directoryId: string): Node[] {
  const base = `directories/${encodeURIComponent(directoryId)}`;
  const status = h('dl', { class: 'push-status', 'aria-label': 'Push credentials' });
  const controls = h('div', { class: 'push-controls' });
  const confirmation = h('div', { class: 'push-confirmation' });
  const read = () => call<PushView>('GET', `${base}/push`).then(show);
  const ask = confirmStep(screen, confirmation, read);
  const show = (view: PushView) => {
    if (!screen.current()) return;
    const row = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];
    status.replaceChildren(
      ...row('APNs certificate', view.apns_certificate),
      ...row('APNs token key', view.apns_token_key),
      ...row('APNs pushes use', view.apns_uses),
      ...row('FCM', view.fcm),
      ...row(
        'Rate limit',
        `${view.rate_limit.count} auth requests per user in ${view.rate_limit.window_seconds} seconds`,
      ),
      ...row('Fraud lock', view.fraud_lock_seconds === null ? 'Off' : `${view.fraud_lock_seconds} seconds`),
    );
    controls.replaceChildren(...forms(session, base, view, show, ask));
  };
  read().catch((error: unknown) => refused(screen, error));
  return [h('h3', {}, 'Push'), status, confirmation, controls];
}

function forms(
  session: SessionView,
  base: string,
  view: PushView,
  show: (view: PushView) => void,
  ask: (step: ConfirmStep) => void,
): Node[] {
  const send = (method: Method, path: string, body?: unknown) =>
    call<PushView>(method, `${base}/push${path}`, body).then(show);
  /** Removing a credential stops the pushes it sends: asked first, then read anew. */
  const removal = (what: string, path: string, stops: string) => () =>
    ask({
      question: `Remove the ${what}? ${stops}`,
      label: `Remove the ${what}`,
      done: `The ${what} was removed.`,
      act: () => call('DELETE', `${base}/push${path}`),
    });
  const shown: Node[] = [];
  if (may(session, 'directory-write'))
    shown.push(
      fileForm({
        title: 'APNs certificate',
        label: 'Certificate (.p12)',
        accept: '.p12,application/x-pkcs12',
        hint: 'Export the push certificate with its key from Keychain as a .p12 without a password: a password-protected file is refused.',
        maxBytes: maxP12Bytes,
        upload: async (file) => send('PUT', '/apns-certificate', { p12: await base64Of(file) }),
        remove:
          view.apns_certificate === 'none'
            ? undefined
            : removal(
                'APNs certificate',
                '/apns-certificate',
                'Pushes to iPhones go out only with a token key, if there is one.',
              ),
      }),
      fileForm({
        title: 'FCM service account',
        label: 'Service account key (.json)',
        accept: '.json,application/json',
        hint: 'The service account’s JSON key file from the Firebase console (Project settings, Service accounts).',
        maxBytes: maxServiceAccountBytes,
        upload: async (file) => send('PUT', '/fcm', { service_account: await file.text() }),
        remove:
          view.fcm === 'none'
            ? undefined
            : removal('FCM service account', '/fcm', 'Pushes to Android devices stop.'),
      }),
    );
  if (may(session, 'deployment'))
    shown.push(
      tokenKeyForm(
        send,
        view.apns_token_key === 'none'
          ? undefined
          : removal(
              'APNs token key',
              '/apns-token-key',
              'Pushes to iPhones go out with the certificate, if there is one.',
            ),
      ),
      limitsForm(base, view, show),
    );
  return shown;
}

/** A file's bytes in base64, as `ios_p12` takes them. */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () =>
      resolve((typeof reader.result === 'string' ? reader.result : '').replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(new Error('The browser could not read the file.'));
    reader.readAsDataURL(file);
  });
}

interface FileFormOptions {
  readonly title: string;
  readonly label: string;
  readonly accept: string;
  readonly hint: string;
  readonly maxBytes: number;
  readonly upload: (file: File) => Promise<void>;
  readonly remove: (() => void) | undefined;
}

function fileForm(options: FileFormOptions): HTMLElement {
  const input = h('input', { type: 'file', accept: options.accept });
  const { wrapper } = field(options.label, input, options.hint);
  const note = formNote();
  const upload = h('button', { type: 'submit' }, `Upload ${options.title}`);
  const actions = h('div', { class: 'actions' }, upload);
  if (options.remove) actions.append(removeButton(`Remove ${options.title}`, options.remove));
  const form = h(
    'form',
    { class: 'panel push-form', 'aria-label': options.title, novalidate: true },
    h('h4', {}, options.title),
    wrapper,
    note.element,
    actions,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = input.files?.[0];
    if (!file) return note.say(`Choose the ${options.label.toLowerCase()} first.`);
    if (file.size > options.maxBytes)
      return note.say(`That file is larger than ${options.maxBytes / 1024} KB: it is not one.`);
    void acting(upload, note, () => options.upload(file));
  });
  return form;
}

function removeButton(label: string, ask: () => void): HTMLElement {
  const button = h('button', { type: 'button', class: 'danger' }, label);
  button.addEventListener('click', ask);
  return button;
}

/** The operator's APNs token key: the .p8 file, its key id, the team id and the app's bundle id. */
function tokenKeyForm(
  send: (method: Method, path: string, body?: unknown) => Promise<void>,
  remove: (() => void) | undefined,
): HTMLElement {
  const key = h('input', { type: 'file', accept: '.p8' });
  const { wrapper } = field(
    'Token key (.p8)',
    key,
    'The key file from Apple’s developer site; it never expires.',
  );
  const keyId = textInput('Key id', { hint: '10 letters or digits, as Apple shows it beside the key.' });
  const teamId = textInput('Team id', { hint: '10 letters or digits.' });
  const topic = textInput('Bundle id', { hint: 'The app’s bundle id, such as com.example.app.' });
  const note = formNote();
  const save = h('button', { type: 'submit' }, 'Save token key');
  const actions = h('div', { class: 'actions' }, save);
  if (remove) actions.append(removeButton('Remove token key', remove));
  const form = h(
    'form',
    { class: 'panel push-form', 'aria-label': 'APNs token key', novalidate: true },
    h('h4', {}, 'APNs token key'),
    wrapper,
    wrapperOf(keyId),
    wrapperOf(teamId),
    wrapperOf(topic),
    note.element,
    actions,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = key.files?.[0];
    if (!file) return note.say('Choose the .p8 file first.');
    if (file.size > 4096) return note.say('That file is larger than a .p8 key: it is not one.');
    void acting(save, note, async () =>
      send('PUT', '/apns-token-key', {
        key_pem: await file.text(),
        key_id: keyId.value.trim(),
        team_id: teamId.value.trim(),
        topic: topic.value.trim(),
      }),
    );
  });
  return form;
}

/** The operator's rate limit per user and fraud lock (empty: off). */
function limitsForm(base: string, view: PushView, show: (view: PushView) => void): HTMLElement {
  const count = textInput('Auth requests per user', {
    value: String(view.rate_limit.count),
    inputmode: 'numeric',
    hint: '1 to 10000.',
  });
  const windowSeconds = textInput('In seconds', {
    value: String(view.rate_limit.window_seconds),
    inputmode: 'numeric',
    hint: '60 to 86400.',
  });
  const lock = textInput('Fraud lock in seconds', {
    value: view.fraud_lock_seconds === null ? '' : String(view.fraud_lock_seconds),
    inputmode: 'numeric',
    hint: 'How long a user who reports fraud is locked: 60 to 2592000, or empty for no lock.',
  });
  const note: FormNote = formNote();
  const save = h('button', { type: 'submit' }, 'Save limits');
  const form = h(
    'form',
    { class: 'panel push-form', 'aria-label': 'Rate limit and fraud lock', novalidate: true },
    h('h4', {}, 'Rate limit and fraud lock'),
    wrapperOf(count),
    wrapperOf(windowSeconds),
    wrapperOf(lock),
    note.element,
    h('div', { class: 'actions' }, save),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const counted = numberIn(count.value);
    const seconds = numberIn(windowSeconds.value);
    const locked = lock.value.trim() === '' ? null : numberIn(lock.value);
    if (counted === undefined || seconds === undefined || locked === undefined)
      return note.say('Enter whole numbers (the fraud lock may be empty).');
    void acting(save, note, async () => {
      show(
        await call<PushView>('PATCH', `${base}/settings`, {
          rate_limit: { count: counted, window_seconds: seconds },
          fraud_lock_seconds: locked,
        }),
      );
    });
  });
  return form;
}
