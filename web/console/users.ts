import { h, notice } from '../authenticator/dom.ts';
import { confirmStep } from './confirm-step.ts';
import { call, ConsoleApiError, type SessionView } from './api.ts';
import { keepingChoice } from './organization-choice.ts';
import type { Screen } from './screen.ts';
import { may, refused, type Section } from './section.ts';

/** A directory as GET /console/api/directories lists it (what the chooser needs). */
interface Directory {
  readonly id: string;
  readonly name: string;
}

/** A device as GET /console/api/directories/{id}/users/{identifier} shows it. */
interface Device {
  readonly id: string;
  readonly name: string | null;
  readonly type: string | null;
  readonly status_name: 'link-pending' | 'linked' | 'unlink-pending' | 'unknown';
  readonly created: string;
  readonly updated: string;
  /** While a device linked after an unlink cools off: when it gets requests. */
  readonly answers_from: string | null;
  /** A further device, linked, that waits for one of the user's devices to confirm it. */
  readonly waits_for_confirmation: boolean;
  readonly last_answer: LastAnswer | null;
}

/** The last auth request a device ended: an approval and a denial are both `answered`, sealed to the application. */
interface LastAnswer {
  readonly at: string;
  readonly outcome: 'answered' | 'denied' | 'failed';
  readonly fraud: boolean;
  readonly service_id: string;
  readonly service_name: string | null;
}

interface User {
  readonly directory_id: string;
  readonly identifier: string;
  readonly devices: readonly Device[];
  readonly sessions: readonly { service_id: string; service_name: string; date_created: string }[];
  readonly totp: {
    configured: boolean;
    failed_attempts: number;
    locked: boolean;
    locked_until: string | null;
  };
  readonly fraud_lock: { locked_until: string } | null;
}

/** POST …/users/{identifier}/links. */
interface StartedLink {
  readonly code: string;
  readonly qrcode: string;
  readonly url: string;
  readonly expires_at: string;
  readonly device_id: string;
}

/**
 * Helpdesk (docs/console.md#users): find a directory user by identifier, see their devices, sessions, TOTP and fraud
 * lock, and, for a role that acts for users, unlink a device, start a link, reset TOTP and clear a fraud lock.
 * `#users/<directory id>/<identifier>` keeps the user on a reload.
 */
export const usersSection: Section = {
  id: 'users',
  title: 'Users',
  needs: 'read',
  render: (screen, session, path) => renderUsers(screen, session, path),
};

const userPath = (directoryId: string, identifier: string) =>
  `directories/${encodeURIComponent(directoryId)}/users/${encodeURIComponent(identifier)}`;

const userHash = (directoryId: string, identifier: string) =>
  `#users/${encodeURIComponent(directoryId)}/${encodeURIComponent(identifier)}`;

function when(iso: string): HTMLElement {
  const date = new Date(iso);
  return h(
    'time',
    { datetime: iso },
    Number.isNaN(date.getTime())
      ? iso
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  );
}

function renderUsers(screen: Screen, session: SessionView, path: readonly string[]): void {
  const [directoryId = '', identifier = ''] = path;
  const directory = h(
    'select',
    { id: 'user-directory', name: 'directory' },
    h('option', { value: '' }, 'Reading the directories…'),
  );
  const input = h('input', {
    id: 'user-identifier',
    type: 'text',
    name: 'identifier',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: 256,
    value: identifier,
    'aria-describedby': 'user-identifier-hint',
  });
  const form = h(
    'form',
    { class: 'find-user', 'aria-label': 'Find a user' },
    h('div', { class: 'field' }, h('label', { for: directory.id }, 'Directory'), directory),
    h(
      'div',
      { class: 'field' },
      h('label', { for: input.id }, 'User identifier'),
      input,
      h(
        'p',
        { class: 'hint', id: 'user-identifier-hint' },
        'The identifier your application knows the user by, exactly as it sends it.',
      ),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Find user')),
  );
  const result = h('section', { class: 'user', 'aria-live': 'polite', 'aria-label': 'User' });
  screen.body.append(h('div', { class: 'split' }, form, result));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wanted = input.value;
    if (!directory.value || !wanted.trim()) {
      screen.notes.replaceChildren(notice('Choose a directory and type the user’s identifier.', 'error'));
      return;
    }
    const hash = keepingChoice(session, userHash(directory.value, wanted));
    // The same address again fires no hashchange: look again here.
    if (location.hash === hash) void lookUp(screen, session, result, directory.value, wanted);
    else location.hash = hash;
  });

  call<{ directories: Directory[] }>('GET', 'directories').then(
    ({ directories }) => {
      if (!screen.current()) return;
      directory.replaceChildren(
        h('option', { value: '' }, directories.length ? 'Choose a directory' : 'No directories yet'),
        ...directories.map((each) =>
          h('option', { value: each.id, selected: each.id === directoryId }, each.name),
        ),
      );
      if (!directoryId && directories.length === 1) directory.value = directories[0]?.id ?? '';
    },
    (error: unknown) => refused(screen, error),
  );
  if (directoryId && identifier) void lookUp(screen, session, result, directoryId, identifier);
}

async function lookUp(
  screen: Screen,
  session: SessionView,
  result: HTMLElement,
  directoryId: string,
  identifier: string,
): Promise<void> {
  result.replaceChildren(h('p', { class: 'muted' }, 'Looking the user up…'));
  try {
    const user = await call<User>('GET', userPath(directoryId, identifier));
    if (screen.current()) showUser(screen, session, result, user);
  } catch (error) {
    if (!screen.current()) return;
    if (error instanceof ConsoleApiError && error.code === 'CON-004') {
      result.replaceChildren(
        notice(
          `This directory has no user “${identifier}”. Check the identifier (as your application sends it) and the directory.`,
          'error',
        ),
      );
    } else {
      result.replaceChildren();
      refused(screen, error);
    }
  }
}

function showUser(screen: Screen, session: SessionView, result: HTMLElement, user: User): void {
  const helpdesk = may(session, 'user-helpdesk');
  const path = userPath(user.directory_id, user.identifier);
  const again = () => lookUp(screen, session, result, user.directory_id, user.identifier);
  // One place for the question before an action, and the new link's code: they stay while the user is read again.
  const confirmation = h('div', { class: 'confirmation' });
  const linked = h('div', { class: 'new-link' });

  const confirmThen = confirmStep(screen, confirmation, again);

  const refresh = h('button', { type: 'button' }, 'Read again');
  refresh.addEventListener('click', () => void again());
  const actions = h('div', { class: 'actions' }, refresh);
  if (helpdesk) {
    const link = h('button', { type: 'button', class: 'primary' }, 'Start a new link');
    link.addEventListener('click', () => {
      link.disabled = true;
      screen.notes.replaceChildren();
      call<StartedLink>('POST', `${path}/links`, {}).then(
        async (started) => {
          if (!screen.current()) return;
          const shown = showLink(user.identifier, started);
          await again();
          // Drawn again by the read: put the link back where it was.
          result.querySelector('.new-link')?.replaceChildren(shown);
          shown.scrollIntoView({ block: 'nearest' });
        },
        (error: unknown) => {
          link.disabled = false;
          refused(screen, error);
        },
      );
    });
    actions.append(link);
  }

  const devices = user.devices.length
    ? devicesTable(user, helpdesk, {
        unlink: (device) => {
          const name = deviceName(device);
          confirmThen({
            question: `Unlink “${name}” from ${user.identifier}? It can no longer answer, and the device is told.`,
            label: `Unlink “${name}”`,
            done: `“${name}” was unlinked.`,
            act: () => call('DELETE', `${path}/devices/${encodeURIComponent(device.id)}`),
          });
        },
        approve: (device) => confirmThen(approval(user, device, path)),
      })
    : h('p', { class: 'muted' }, 'No devices.');

  const totp = h(
    'p',
    {},
    user.totp.configured
      ? `Set up. ${user.totp.failed_attempts} failed attempt${user.totp.failed_attempts === 1 ? '' : 's'} since the last success.`
      : 'Not set up.',
    user.totp.locked_until ? ' Locked until ' : '',
    user.totp.locked_until ? when(user.totp.locked_until) : '',
  );
  const totpSection = h(
    'section',
    { 'aria-labelledby': 'user-totp' },
    h('h3', { id: 'user-totp' }, 'TOTP'),
    totp,
  );
  if (helpdesk && user.totp.configured) {
    const reset = h('button', { type: 'button' }, 'Reset TOTP');
    reset.addEventListener('click', () =>
      confirmThen({
        question: `Reset TOTP for ${user.identifier}? The secret is removed; the application enrols the user again.`,
        label: 'Reset TOTP now',
        done: 'TOTP was reset.',
        act: () => call('DELETE', `${path}/totp`),
      }),
    );
    totpSection.append(h('div', { class: 'actions' }, reset));
  }

  const lock = user.fraud_lock;
  const lockSection = h(
    'section',
    { 'aria-labelledby': 'user-lock' },
    h('h3', { id: 'user-lock' }, 'Fraud lock'),
    lock ? h('p', {}, 'Locked until ', when(lock.locked_until), '.') : h('p', {}, 'Not locked.'),
  );
  if (helpdesk && lock) {
    const clear = h('button', { type: 'button' }, 'Clear the fraud lock');
    clear.addEventListener('click', () =>
      confirmThen({
        question: `Clear the fraud lock of ${user.identifier}? Auth requests reach the user’s devices again at once.`,
        label: 'Clear the lock now',
        done: 'The fraud lock was cleared.',
        act: () => call('DELETE', `${path}/fraud-lock`),
      }),
    );
    lockSection.append(h('div', { class: 'actions' }, clear));
  }

  const kept = result.querySelector('.new-link')?.firstChild;
  if (kept) linked.append(kept);
  result.replaceChildren(
    h('h2', {}, user.identifier),
    h('p', { class: 'muted' }, `Directory ${user.directory_id}`),
    actions,
    confirmation,
    linked,
    h('section', { 'aria-labelledby': 'user-devices' }, h('h3', { id: 'user-devices' }, 'Devices'), devices),
    h(
      'section',
      { 'aria-labelledby': 'user-sessions' },
      h('h3', { id: 'user-sessions' }, 'Sessions'),
      user.sessions.length
        ? h(
            'ul',
            { class: 'user-sessions' },
            ...user.sessions.map((each) =>
              h(
                'li',
                {},
                each.service_name,
                h('span', { class: 'muted' }, ' since '),
                when(each.date_created),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No sessions.'),
    ),
    totpSection,
    lockSection,
  );
}

const deviceName = (device: Device) => device.name ?? 'Unnamed device';

const outcomeWords: Readonly<Record<LastAnswer['outcome'], string>> = {
  // The package is sealed to the application: the service cannot say which.
  answered: 'Approved or denied',
  denied: 'Denied',
  failed: 'Wrong codes',
};

/** When a device last answered, what the service saw of it and for which service; "Not yet" before its first. */
function lastAnswerCell(last: LastAnswer | null): HTMLElement {
  if (!last) return h('td', {}, h('span', { class: 'muted' }, 'Not yet'));
  return h(
    'td',
    {},
    last.fraud ? 'Denied as fraud' : outcomeWords[last.outcome],
    h('br'),
    h('span', { class: 'muted' }, last.service_name ?? `Service ${last.service_id}`, ', ', when(last.at)),
  );
}

const statusWords: Readonly<Record<Device['status_name'], string>> = {
  'link-pending': 'Link pending',
  linked: 'Linked',
  'unlink-pending': 'Unlink pending',
  unknown: 'Unknown',
};

/** What a role that acts for users may do to a device from its row. */
interface DeviceActions {
  readonly unlink: (device: Device) => void;
  /** For a device waiting for confirmation or cooling off: the helpdesk vouches for the person. */
  readonly approve: (device: Device) => void;
}

/** Whether helpdesk may approve a device: it waits for a confirmation, or cools off, and nothing else will end it. */
const approvable = (device: Device) => device.waits_for_confirmation || device.answers_from !== null;

/**
 * The question before helpdesk vouches for a device: which device, and what it then may do. Only for a person helpdesk
 * knows to be the user: whoever holds the device answers for them.
 */
function approval(user: User, device: Device, path: string) {
  const name = deviceName(device);
  const waits = device.waits_for_confirmation;
  return {
    question: waits
      ? `Approve “${name}” for ${user.identifier}? It is linked at once and answers their auth requests, as if their other device had confirmed it. Do this only when you know the person asking is ${user.identifier}: you vouch for them.`
      : `Let “${name}” answer for ${user.identifier} now? Its cooling-off ends and it gets their auth requests at once. Do this only when you know the person asking is ${user.identifier}: you vouch for them.`,
    label: waits ? `Approve “${name}”` : `Let “${name}” answer now`,
    done: waits ? `“${name}” is linked.` : `“${name}” answers now.`,
    act: () => call('POST', `${path}/devices/${encodeURIComponent(device.id)}/confirm`),
    tone: 'primary' as const,
  };
}

function devicesTable(user: User, helpdesk: boolean, actions: DeviceActions): HTMLElement {
  const heads = ['Name', 'Type', 'Status', 'Linked', 'Last answer', ...(helpdesk ? ['Action'] : [])];
  return h(
    'table',
    { class: 'user-devices' },
    h('caption', { class: 'muted' }, `Devices of ${user.identifier}`),
    h('thead', {}, h('tr', {}, ...heads.map((head) => h('th', { scope: 'col' }, head)))),
    h(
      'tbody',
      {},
      ...user.devices.map((device) => {
        const status = h('td', {}, statusWords[device.status_name] ?? device.status_name);
        if (device.waits_for_confirmation)
          status.append(
            h('br'),
            h('span', { class: 'muted' }, 'Waits for the user’s other device to confirm it'),
          );
        if (device.answers_from)
          status.append(
            h('br'),
            h('span', { class: 'muted' }, 'Cooling off: gets requests from '),
            when(device.answers_from),
          );
        const row = h(
          'tr',
          { 'data-device': device.id },
          h('td', {}, deviceName(device)),
          h('td', {}, device.type ?? '—'),
          status,
          h(
            'td',
            {},
            device.status_name === 'linked'
              ? when(device.updated)
              : h('span', { class: 'muted' }, 'Started ', when(device.created)),
          ),
          lastAnswerCell(device.last_answer),
        );
        if (helpdesk) {
          const buttons = h('div', { class: 'device-actions' });
          if (approvable(device)) {
            const approve = h(
              'button',
              { type: 'button', class: 'primary' },
              device.waits_for_confirmation ? 'Approve this device' : 'Let it answer now',
            );
            approve.addEventListener('click', () => actions.approve(device));
            buttons.append(approve);
          }
          const unlink = h('button', { type: 'button' }, `Unlink “${deviceName(device)}”`);
          unlink.addEventListener('click', () => actions.unlink(device));
          buttons.append(unlink);
          row.append(h('td', {}, buttons));
        }
        return row;
      }),
    ),
  );
}

/** The new link as the person scans or opens it; the QR image only from this service's own origin. */
function showLink(identifier: string, started: StartedLink): HTMLElement {
  const ownImage = (() => {
    try {
      return new URL(started.qrcode, location.href).origin === location.origin;
    } catch {
      return false;
    }
  })();
  return h(
    'div',
    { class: 'panel' },
    h('h3', {}, `New link for ${identifier}`),
    h('p', {}, 'Have the person scan this code with the new device, or open the address on it:'),
    ownImage
      ? h('img', { src: started.qrcode, alt: 'QR code of the link address', width: 240, height: 240 })
      : false,
    h('p', {}, h('a', { href: started.url, class: 'address', rel: 'noreferrer' }, started.url)),
    h('p', {}, 'Linking code ', h('strong', { class: 'code' }, started.code)),
    h('p', { class: 'muted' }, 'Works until ', when(started.expires_at), ', once.'),
  );
}
