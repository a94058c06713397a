import { h, notice } from '../authenticator/dom.ts';
import { ConsoleApiError, call, type SessionView } from './api.ts';
import { generateKeyPair, privateKeyDownload } from './key-pair.ts';
import type { Screen } from './screen.ts';
import { chosenOrganization, organizationChooser, withOrganization } from './organization-choice.ts';
import { may, refused, type Section } from './section.ts';

/** Whose keys: the path's level (`organizations`, `directories`, `services`) and the id. */
type Level = 'organizations' | 'directories' | 'services';

interface Owner {
  readonly level: Level;
  readonly id: string;
  readonly label: string;
}

/** A key as GET /console/api/{level}/{id}/keys lists it. */
interface Key {
  readonly id: string;
  readonly date_created: string;
  readonly date_expires: string | null;
  readonly active: boolean;
}

interface Named {
  readonly id: string;
  readonly name: string;
  readonly organization_id: string;
}

const levels: readonly Level[] = ['organizations', 'directories', 'services'];
const levelNames: Readonly<Record<Level, string>> = {
  organizations: 'Organization',
  directories: 'Directory',
  services: 'Service',
};

/** The public keys of the organization, a directory or a service; `#keys/<level>/<id>` names whose. */
export const keysSection: Section = {
  id: 'keys',
  title: 'Keys',
  needs: 'read',
  render: (screen, session, path) => renderKeys(screen, session, path),
};

/** The organization's own keys sign for all of it: only roles with `organization-key-write` change them. */
const mayWrite = (session: SessionView, level: Level) =>
  may(session, level === 'organizations' ? 'organization-key-write' : 'key-write');

function renderKeys(screen: Screen, session: SessionView, path: readonly string[]): void {
  const [level, id] = path;
  const chosen = levels.includes(level as Level) && id ? { level: level as Level, id } : undefined;
  const organizationId = chosenOrganization(session);
  const select = h(
    'select',
    { id: 'key-owner' },
    h('option', { value: '' }, 'Reading the organization, directories and services…'),
  );
  select.addEventListener('change', () => {
    if (select.value) location.hash = withOrganization(`#keys/${select.value}`, organizationId);
  });
  const panel = h('section', { class: 'keys', 'aria-label': 'Keys', 'aria-live': 'polite' });
  screen.body.append(
    organizationChooser(session, '#keys', 'Choose an organization') ?? '',
    h('div', { class: 'field' }, h('label', { for: 'key-owner' }, 'Whose keys'), select),
    panel,
  );
  owners(organizationId).then(
    (found) => {
      if (!screen.current()) return;
      select.replaceChildren(
        h(
          'option',
          { value: '' },
          organizationId
            ? 'Choose the organization, a directory or a service'
            : 'Choose an organization first',
        ),
      );
      for (const each of levels) {
        const ofLevel = found.filter((owner) => owner.level === each);
        if (!ofLevel.length) continue;
        select.append(
          h(
            'optgroup',
            { label: levelNames[each] },
            ...ofLevel.map((owner) => h('option', { value: `${owner.level}/${owner.id}` }, owner.label)),
          ),
        );
      }
      if (chosen) select.value = `${chosen.level}/${chosen.id}`;
      const label = found.find((owner) => owner.level === chosen?.level && owner.id === chosen.id)?.label;
      if (chosen) renderOwnerKeys(screen, session, { ...chosen, label: label ?? chosen.id }, panel);
    },
    (error: unknown) => refused(screen, error),
  );
}

/** What has keys in the organization shown (the admin's, or the one the operator chose; none, nothing): the
 * organization, its directories and every service of them. */
async function owners(organizationId: string | undefined): Promise<Owner[]> {
  if (!organizationId) return [];
  const directories = (await call<{ directories: Named[] }>('GET', 'directories')).directories.filter(
    (directory) => directory.organization_id === organizationId,
  );
  const organizationIds = [organizationId];
  const serviceLists = await Promise.all([
    ...organizationIds.map((id) =>
      call<{ services: Named[] }>('GET', `organizations/${encodeURIComponent(id)}/services`),
    ),
    ...directories.map((directory) =>
      call<{ services: Named[] }>('GET', `directories/${encodeURIComponent(directory.id)}/services`),
    ),
  ]);
  return [
    ...organizationIds.map((id): Owner => ({ level: 'organizations', id, label: `Organization ${id}` })),
    ...directories.map((directory): Owner => ({
      level: 'directories',
      id: directory.id,
      label: directory.name,
    })),
    ...serviceLists
      .flatMap((list) => list.services)
      .map((service): Owner => ({ level: 'services', id: service.id, label: service.name })),
  ];
}

const keysPath = (owner: Owner) => `${owner.level}/${encodeURIComponent(owner.id)}/keys`;

/** `2026-11-28T04:40:00Z` as `2026-11-28 04:40 UTC`. */
const shownTime = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'Never');

function renderOwnerKeys(screen: Screen, session: SessionView, owner: Owner, panel: HTMLElement): void {
  const writes = mayWrite(session, owner.level);
  const table = h('div', { class: 'key-list' }, h('p', { class: 'muted' }, 'Reading the keys…'));
  const generated = h('div', { class: 'generated' });
  panel.dataset.owner = `${owner.level}/${owner.id}`;
  panel.replaceChildren(
    h('h2', {}, `Keys of ${levelNames[owner.level].toLowerCase()} ${owner.label}`),
    ...(writes
      ? [table, generated, addForms(screen, owner, generated, list)]
      : [
          h('p', { class: 'muted' }, 'Your role may see these keys but not add, change or remove them.'),
          table,
        ]),
  );
  function list(): void {
    call<{ keys: Key[] }>('GET', keysPath(owner)).then(
      ({ keys }) => {
        if (screen.current()) table.replaceChildren(keyTable(screen, owner, keys, writes, list));
      },
      (error: unknown) => refused(screen, error),
    );
  }
  list();
}

function keyTable(
  screen: Screen,
  owner: Owner,
  keys: readonly Key[],
  writes: boolean,
  list: () => void,
): HTMLElement {
  if (!keys.length) return h('p', { class: 'muted' }, 'No keys yet.');
  return h(
    'table',
    {},
    h('caption', {}, 'Public keys'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Key id (fingerprint)'),
        h('th', { scope: 'col' }, 'State'),
        h('th', { scope: 'col' }, 'Created'),
        h('th', { scope: 'col' }, 'Expires'),
        writes && h('th', { scope: 'col' }, 'Change'),
      ),
    ),
    h(
      'tbody',
      {},
      ...keys.map((key) =>
        h(
          'tr',
          { 'data-key': key.id },
          h('td', { class: 'kid' }, key.id),
          h('td', {}, key.active ? 'Active' : 'Inactive'),
          h('td', {}, shownTime(key.date_created)),
          h('td', {}, shownTime(key.date_expires)),
          writes && h('td', {}, ...keyChanges(screen, owner, key, list)),
        ),
      ),
    ),
  );
}

/** Activate or deactivate, set or clear the expiry, and remove after a confirmation, for one key. */
function keyChanges(screen: Screen, owner: Owner, key: Key, list: () => void): Node[] {
  const keyPath = `${keysPath(owner)}/${encodeURIComponent(key.id)}`;
  const change = (button: HTMLButtonElement, method: 'PATCH' | 'DELETE', body?: unknown) => {
    button.disabled = true;
    call(method, keyPath, body).then(list, (error: unknown) => {
      button.disabled = false;
      refused(screen, error);
    });
  };
  const toggle = h('button', { type: 'button' }, key.active ? 'Deactivate' : 'Activate');
  toggle.addEventListener('click', () => change(toggle, 'PATCH', { active: !key.active }));

  const date = h('input', {
    type: 'date',
    'aria-label': `Expiry date of key ${key.id}`,
    value: key.date_expires?.slice(0, 10),
  });
  const setExpiry = h('button', { type: 'button' }, 'Set expiry');
  setExpiry.addEventListener('click', () => {
    if (!date.value) {
      screen.notes.replaceChildren(notice('Choose the expiry date first.', 'error'));
      return;
    }
    change(setExpiry, 'PATCH', { date_expires: `${date.value}T00:00:00Z` });
  });
  const clearExpiry = h('button', { type: 'button' }, 'Clear expiry');
  clearExpiry.addEventListener('click', () => change(clearExpiry, 'PATCH', { date_expires: null }));

  const confirmation = h('div', { class: 'confirm', hidden: true });
  const remove = h('button', { type: 'button', class: 'danger' }, 'Remove');
  const removeNow = h('button', { type: 'button', class: 'danger' }, 'Remove this key');
  const keep = h('button', { type: 'button' }, 'Keep it');
  confirmation.append(
    h('p', {}, 'Requests signed with this key will be refused at once.'),
    h('div', { class: 'actions' }, removeNow, keep),
  );
  remove.addEventListener('click', () => {
    confirmation.hidden = false;
    remove.hidden = true;
    keep.focus();
  });
  keep.addEventListener('click', () => {
    confirmation.hidden = true;
    remove.hidden = false;
    remove.focus();
  });
  removeNow.addEventListener('click', () => change(removeNow, 'DELETE'));
  return [
    h('div', { class: 'actions' }, toggle, remove),
    h('div', { class: 'actions' }, date, setExpiry, clearExpiry),
    confirmation,
  ];
}

/** Adding a pasted public key, and generating a key pair whose private half only the person gets. */
function addForms(screen: Screen, owner: Owner, generated: HTMLElement, list: () => void): HTMLElement {
  const pem = h('textarea', {
    id: 'public-key',
    rows: 6,
    spellcheck: 'false',
    'aria-describedby': 'public-key-hint',
  });
  const add = h('button', { type: 'button' }, 'Add public key');
  add.addEventListener('click', () => {
    if (!pem.value.trim()) {
      screen.notes.replaceChildren(notice('Paste a PEM public key first.', 'error'));
      return;
    }
    if (/PRIVATE KEY/.test(pem.value)) {
      // A pasted private key goes nowhere: the service needs only the public half.
      screen.notes.replaceChildren(
        notice(
          'That is a private key. Paste the public key (BEGIN PUBLIC KEY); the private key stays with you.',
          'error',
        ),
      );
      return;
    }
    add.disabled = true;
    call<{ key_id: string }>('POST', keysPath(owner), { public_key: pem.value }).then(
      ({ key_id }) => {
        add.disabled = false;
        pem.value = '';
        screen.notes.replaceChildren(notice(`Key ${key_id} added.`, 'success'));
        list();
      },
      (error: unknown) => {
        add.disabled = false;
        refused(screen, error);
      },
    );
  });

  const generate = h('button', { type: 'button', class: 'primary' }, 'Generate a key pair');
  let discardEarlier: (() => void) | undefined;
  const generateNow = async () => {
    generate.disabled = true;
    discardEarlier?.();
    generated.replaceChildren(notice('Generating a 4096-bit RSA key pair in this browser…'));
    try {
      const pair = await generateKeyPair();
      const { key_id } = await call<{ key_id: string }>('POST', keysPath(owner), {
        public_key: pair.publicPem,
      });
      if (!screen.current()) return;
      const download = privateKeyDownload(
        pair.privatePem,
        `${owner.level.slice(0, -1)}-${owner.id}-private-key.pem`,
        'Download the private key',
      );
      discardEarlier = download.discard;
      addEventListener('hashchange', download.discard, { once: true });
      generated.replaceChildren(
        h(
          'div',
          { class: 'panel' },
          h('h3', {}, 'Key pair generated'),
          h('p', {}, 'Key id: ', h('span', { class: 'kid', 'data-generated-key': key_id }, key_id)),
          h(
            'p',
            {},
            'Only the public key was sent to the service. The private key was made in this browser and never left it: ' +
              'it is not stored anywhere and will not be shown again. Download it now and keep it where your ' +
              'application can read it.',
          ),
          h('p', {}, download.link),
        ),
      );
      list();
    } catch (error) {
      generated.replaceChildren();
      if (error instanceof ConsoleApiError) refused(screen, error);
      else if (screen.current())
        screen.notes.replaceChildren(
          notice(
            `This browser could not make a key pair: ${(error as Error)?.message ?? String(error)}`,
            'error',
          ),
        );
    } finally {
      generate.disabled = false;
    }
  };
  generate.addEventListener('click', () => void generateNow());

  return h(
    'div',
    { class: 'key-forms' },
    h('h3', {}, 'Add a key'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'public-key' }, 'Public key (PEM)'),
      pem,
      h(
        'p',
        { class: 'hint', id: 'public-key-hint' },
        'An RSA public key of at least 2048 bits, BEGIN PUBLIC KEY.',
      ),
    ),
    h('div', { class: 'actions' }, add),
    h(
      'p',
      {},
      'Or let this browser make a key pair: the service gets the public key, you download the private one.',
    ),
    h('div', { class: 'actions' }, generate),
  );
}
