import type { ServiceView as SignedServiceView } from '#shared/domain/service';
import type { ConsoleDirectory } from '#shared/use-cases/console-directories';
import { h } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import { acting, checkbox, formNote, httpUrlProblem, nameProblem, textInput, wrapperOf } from './inputs.ts';
import { pushBlock } from './directory-push.ts';
import { keepingChoice } from './organization-choice.ts';
import type { Screen } from './screen.ts';
import { may, refused, type Section } from './section.ts';

/** A directory as GET /console/api/directories lists it: the server's type (a type import: no code in the page). */
export type Directory = ConsoleDirectory;

/** A service as the console's API shows it: the signed API's view, with whose it is (see service-endpoints.ts). */
export interface ServiceView extends SignedServiceView {
  readonly organization_id: string;
  readonly directory_id: string | null;
}

/**
 * The directories of the admin's organization, each with its details on demand (`#directories/<id>` keeps one open
 * across a reload); roles that may change directories create them and change them there.
 */
export const directoriesSection: Section = {
  id: 'directories',
  title: 'Directories',
  needs: 'read',
  render: (screen, session, path) => renderDirectories(screen, session, path[0]),
};

const path = (id: string) => `directories/${encodeURIComponent(id)}`;

function renderDirectories(screen: Screen, session: SessionView, openId: string | undefined): void {
  const list = h('ul', { class: 'directories', 'aria-label': 'Directories' });
  const details = h('section', {
    id: 'directory-details',
    class: 'details',
    'aria-live': 'polite',
    'aria-label': 'Directory details',
  });
  const side = h('div', {}, list);
  if (may(session, 'directory-write')) side.append(createForm(session));
  screen.body.append(h('div', { class: 'split' }, side, details));
  list.append(h('li', { class: 'muted' }, 'Reading the directories…'));
  const open = (id: string) => {
    for (const each of list.querySelectorAll('button[aria-pressed]'))
      each.setAttribute('aria-pressed', String(each.getAttribute('data-directory') === id));
    history.replaceState(null, '', keepingChoice(session, `#directories/${encodeURIComponent(id)}`));
    call<Directory>('GET', path(id)).then(
      (shown) => {
        if (screen.current()) showDetails(screen, session, shown, details, list);
      },
      (error: unknown) => refused(screen, error),
    );
  };
  call<{ directories: Directory[] }>('GET', 'directories').then(
    ({ directories }) => {
      if (!screen.current()) return;
      list.replaceChildren(
        ...(directories.length
          ? directories.map((directory) => directoryItem(directory, open))
          : [h('li', { class: 'muted' }, 'No directories yet.')]),
      );
      if (openId) open(openId);
    },
    (error: unknown) => refused(screen, error),
  );
}

function createForm(session: SessionView): HTMLElement {
  const name = textInput('Directory name', { hint: 'Unique in your organization.' });
  const note = formNote();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Create directory');
  const form = h(
    'form',
    { class: 'panel create', 'aria-label': 'New directory', novalidate: true },
    h('h2', {}, 'New directory'),
    wrapperOf(name),
    note.element,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wrong = nameProblem('Directory name', name.value);
    if (wrong) return note.say(wrong);
    void acting(button, note, async () => {
      const created = await call<Directory>('POST', 'directories', { name: name.value.trim() });
      // A new address draws the list again with the new directory open.
      location.hash = keepingChoice(session, `#directories/${encodeURIComponent(created.id)}`);
    });
  });
  return form;
}

function directoryItem(directory: Directory, open: (id: string) => void): HTMLElement {
  const button = h(
    'button',
    {
      type: 'button',
      class: 'directory',
      'aria-controls': 'directory-details',
      'aria-pressed': 'false',
      'data-directory': directory.id,
    },
    h('span', { class: 'directory-name' }, directory.name),
    h('span', { class: 'muted directory-state' }, directory.active ? 'Active' : 'Inactive'),
  );
  button.addEventListener('click', () => open(directory.id));
  return h('li', {}, button);
}

function showDetails(
  screen: Screen,
  session: SessionView,
  directory: Directory,
  details: HTMLElement,
  list: HTMLElement,
): void {
  const state = list.querySelector(`button[data-directory="${CSS.escape(directory.id)}"] .directory-state`);
  if (state) state.textContent = directory.active ? 'Active' : 'Inactive';
  const row = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];
  const redraw = (changed: Directory) => {
    if (screen.current()) showDetails(screen, session, changed, details, list);
  };
  const services = h('ul', { class: 'links', 'aria-label': 'Services of this directory' });
  details.replaceChildren(
    h('h2', {}, directory.name),
    h(
      'dl',
      {},
      ...row('State', directory.active ? 'Active' : 'Inactive'),
      ...row('Directory id', directory.id),
      ...row('Services', String(directory.service_ids.length)),
      ...row('SDK keys', String(directory.sdk_key_count)),
      ...row('Webhook URL', directory.webhook_url ?? 'None'),
      ...row('Denial context', directory.denial_context_inquiry_enabled ? 'Asked for' : 'Not asked for'),
    ),
    h('h3', {}, 'Services'),
    services,
  );
  call<{ services: ServiceView[] }>('GET', `${path(directory.id)}/services`).then(
    (answer) =>
      services.replaceChildren(
        ...(answer.services.length
          ? answer.services.map((service) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: keepingChoice(session, `#services/${encodeURIComponent(service.id)}`) },
                  service.name,
                ),
              ),
            )
          : [h('li', { class: 'muted' }, 'No services yet.')]),
      ),
    (error: unknown) => refused(screen, error),
  );
  if (may(session, 'directory-write')) details.append(...changes(screen, directory, redraw));
  details.append(...pushBlock(screen, session, directory.id));
}

/** What a role that may change directories changes: state, webhook URL, denial context, SDK keys. */
function changes(screen: Screen, directory: Directory, redraw: (changed: Directory) => void): Node[] {
  const patch = (body: Record<string, unknown>) =>
    call<Directory>('PATCH', path(directory.id), body).then(redraw);

  const stateNote = formNote();
  const toggle = h(
    'button',
    { type: 'button' },
    directory.active ? 'Deactivate directory' : 'Activate directory',
  );
  toggle.addEventListener(
    'click',
    () => void acting(toggle, stateNote, () => patch({ active: !directory.active })),
  );
  const denial = checkbox(
    'Devices ask the user why they deny a request',
    directory.denial_context_inquiry_enabled,
  );
  denial.addEventListener('change', () => {
    denial.disabled = true;
    patch({ denial_context_inquiry_enabled: denial.checked }).catch((error: unknown) => {
      denial.disabled = false;
      denial.checked = !denial.checked;
      stateNote.refused(error);
    });
  });

  const webhook = textInput('Webhook URL', {
    value: directory.webhook_url,
    hint: 'Where the service sends this directory’s webhooks, such as https://example.com/hooks.',
    inputmode: 'url',
    name: 'webhook_url',
  });
  const webhookNote = formNote();
  const save = h('button', { type: 'submit' }, 'Save webhook URL');
  const clear = h('button', { type: 'button' }, 'Clear webhook URL');
  clear.hidden = directory.webhook_url === null;
  const webhookForm = h(
    'form',
    { 'aria-label': 'Change the webhook', novalidate: true },
    wrapperOf(webhook),
    webhookNote.element,
    h('div', { class: 'actions' }, save, clear),
  );
  webhookForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = webhook.value.trim();
    const wrong =
      value === '' ? 'Enter a webhook URL, or clear it.' : httpUrlProblem('The webhook URL', value);
    if (wrong) return webhookNote.say(wrong);
    void acting(save, webhookNote, () => patch({ webhook_url: value }));
  });
  clear.addEventListener('click', () => void acting(clear, webhookNote, () => patch({ webhook_url: null })));

  return [
    h('h3', {}, 'Settings'),
    h('div', { class: 'actions' }, toggle),
    wrapperOf(denial),
    stateNote.element,
    webhookForm,
    ...sdkKeys(screen, directory, () => call<Directory>('GET', path(directory.id)).then(redraw)),
  ];
}

function sdkKeys(screen: Screen, directory: Directory, reread: () => Promise<void>): Node[] {
  const list = h('ul', { class: 'sdk-keys', 'aria-label': 'SDK keys' });
  const note = formNote();
  const generated = h('div', { class: 'generated', 'aria-live': 'polite' });
  const generate = h('button', { type: 'button' }, 'Generate an SDK key');
  generate.addEventListener(
    'click',
    () =>
      void acting(generate, note, async () => {
        const { sdk_key } = await call<{ sdk_key: string }>('POST', `${path(directory.id)}/sdk-keys`);
        await reread();
        showOnce(sdk_key);
      }),
  );
  const showOnce = (key: string) => {
    const target = document.querySelector('#directory-details .generated');
    const copy = h('button', { type: 'button' }, 'Copy');
    const copied = h('span', { class: 'muted', role: 'status' });
    copy.addEventListener('click', () => {
      navigator.clipboard.writeText(key).then(
        () => (copied.textContent = 'Copied.'),
        () => (copied.textContent = 'The browser refused to copy: select the key and copy it.'),
      );
    });
    target?.replaceChildren(
      h(
        'div',
        { class: 'notice success' },
        h('p', {}, 'New SDK key (give it to the app that uses this directory):'),
        h('p', {}, h('code', { class: 'key' }, key)),
        h('div', { class: 'actions' }, copy, copied),
      ),
    );
  };
  call<{ sdk_keys: string[] }>('GET', `${path(directory.id)}/sdk-keys`).then(
    ({ sdk_keys }) =>
      list.replaceChildren(
        ...(sdk_keys.length
          ? sdk_keys.map((key) => sdkKeyItem(directory, key, note, reread))
          : [h('li', { class: 'muted' }, 'No SDK keys.')]),
      ),
    (error: unknown) => refused(screen, error),
  );
  return [h('h3', {}, 'SDK keys'), list, note.element, h('div', { class: 'actions' }, generate), generated];
}

function sdkKeyItem(
  directory: Directory,
  key: string,
  note: ReturnType<typeof formNote>,
  reread: () => Promise<void>,
): HTMLElement {
  const remove = h('button', { type: 'button', 'aria-label': `Remove SDK key ${key}` }, 'Remove');
  const item = h('li', {}, h('code', { class: 'key' }, key), remove);
  remove.addEventListener('click', () => {
    const sure = h('button', { type: 'button', class: 'danger' }, 'Remove this key');
    const keep = h('button', { type: 'button' }, 'Keep it');
    const question = h(
      'div',
      { class: 'confirm', role: 'group', 'aria-label': 'Confirm removal' },
      h('p', {}, 'Apps using this key stop working. Remove it?'),
      h('div', { class: 'actions' }, sure, keep),
    );
    remove.hidden = true;
    item.append(question);
    sure.focus();
    keep.addEventListener('click', () => {
      question.remove();
      remove.hidden = false;
      remove.focus();
    });
    sure.addEventListener(
      'click',
      () =>
        void acting(sure, note, async () => {
          await call('DELETE', `${path(directory.id)}/sdk-keys/${encodeURIComponent(key)}`);
          await reread();
        }),
    );
  });
  return item;
}
