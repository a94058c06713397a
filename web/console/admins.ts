import { h } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import type { Screen } from './screen.ts';
import { confirmStep } from './confirm-step.ts';
import { chosenOrganization, organizationChooser } from './organization-choice.ts';
import { refused, type Section } from './section.ts';
import { roleNames } from './words.ts';

/** An admin as GET /console/api/admins lists it. */
interface Admin {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly enrolled_at: string;
  readonly last_sign_in_at: string | null;
  readonly authenticator_linked: boolean;
}

/** A pending invite (never its token). */
interface Invite {
  readonly id: string;
  readonly role: string;
  readonly expires_at: string;
  readonly invited_by: string;
}

interface Admins {
  readonly organization_id: string | null;
  readonly admins: readonly Admin[];
  readonly invites: readonly Invite[];
}

/** The roles an owner gives in their organization; the operator, with no organization chosen, makes operators. */
const organizationRoles = ['owner', 'admin', 'helpdesk', 'auditor'] as const;
const deploymentRoles = ['operator'] as const;

/**
 * Admin management (docs/console.md#admin-management): the organization's admins and pending invites, an invite by
 * role (its address shown once), a role change, a removal and a reset of another admin's authenticator, each after a
 * confirmation naming the person. The operator chooses the organization (`#admins?organization_id=<id>`), or none for
 * the deployment's operators.
 */
export const adminsSection: Section = {
  id: 'admins',
  title: 'Admins',
  needs: 'admin-management',
  render: (screen, session) => renderAdmins(screen, session),
};

function when(iso: string | null): HTMLElement | string {
  if (!iso) return 'Never';
  const date = new Date(iso);
  return h(
    'time',
    { datetime: iso },
    Number.isNaN(date.getTime())
      ? iso
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  );
}

const roleName = (role: string) => roleNames[role] ?? role;

function renderAdmins(screen: Screen, session: SessionView): void {
  const organizationId = chosenOrganization(session);
  // The operator's own organization is none: naming it would be refused, so only a chosen one is named.
  const named = session.organization_id === null ? organizationId : undefined;
  const roles = session.organization_id === null && !named ? deploymentRoles : organizationRoles;
  // The invite's address and the question before a change stay while the list is read again.
  const invited = h('div', { class: 'admin-invited' });
  const confirmation = h('div', { class: 'admin-confirmation' });
  const list = h('div', { class: 'admins', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Reading…'));

  const read = async (): Promise<void> => {
    try {
      const answer = await call<Admins>(
        'GET',
        named ? `admins?${new URLSearchParams({ organization_id: named })}` : 'admins',
      );
      if (screen.current()) showList(answer);
    } catch (error) {
      refused(screen, error);
    }
  };

  const confirmThen = confirmStep(screen, confirmation, read);

  /** Recovery of an admin who lost their authenticator: it is unlinked, and they link a new one at next sign-in. */
  const resetButton = (admin: Admin): HTMLElement => {
    const reset = h('button', { type: 'button' }, 'Reset authenticator');
    reset.addEventListener('click', () =>
      confirmThen({
        question: `Reset the authenticator of ${admin.name}? It no longer approves their sign-ins, their sessions end, and their next sign-in with their passkey links a new one. Do it only once you are sure you are dealing with ${admin.name}.`,
        label: `Reset the authenticator of ${admin.name}`,
        done: `The authenticator of ${admin.name} was reset: they link a new one at their next sign-in.`,
        act: () => call('POST', `admins/${encodeURIComponent(admin.id)}/authenticator/reset`),
      }),
    );
    return reset;
  };

  const adminRow = (admin: Admin): HTMLElement => {
    const select = h(
      'select',
      { id: `role-${admin.id}`, 'aria-label': `New role for ${admin.name}` },
      ...roles.map((role) => h('option', { value: role, selected: role === admin.role }, roleName(role))),
    );
    const change = h('button', { type: 'button' }, 'Change role');
    change.addEventListener('click', () => {
      const role = select.value;
      const self = admin.id === session.admin_id ? ' You are signed out after it.' : '';
      confirmThen({
        question: `Change the role of ${admin.name} from ${roleName(admin.role)} to ${roleName(role)}? Their sessions end.${self}`,
        label: `Make ${admin.name} ${roleName(role)}`,
        done: `${admin.name} is now ${roleName(role)}.`,
        act: () => call('PATCH', `admins/${encodeURIComponent(admin.id)}`, { role }),
      });
    });
    const remove = h('button', { type: 'button', class: 'danger' }, 'Remove');
    remove.addEventListener('click', () =>
      confirmThen({
        question: `Remove ${admin.name}? Their sessions end, their authenticator is unlinked, the invites they made are revoked, and their passkey signs nobody in.`,
        label: `Remove ${admin.name}`,
        done: `${admin.name} was removed.`,
        act: () => call('DELETE', `admins/${encodeURIComponent(admin.id)}`),
      }),
    );
    const isSelf = admin.id === session.admin_id;
    return h(
      'tr',
      { 'data-admin': admin.id },
      h('td', {}, admin.name, isSelf ? h('span', { class: 'muted' }, ' (you)') : ''),
      h('td', {}, roleName(admin.role)),
      h('td', {}, when(admin.enrolled_at)),
      h('td', {}, when(admin.last_sign_in_at)),
      h(
        'td',
        {},
        h(
          'div',
          { class: 'admin-actions' },
          admin.authenticator_linked ? 'Linked' : 'Not linked',
          // Never one's own: the server refuses it too (a stolen passkey alone must not replace the phone).
          admin.authenticator_linked && !isSelf ? resetButton(admin) : '',
        ),
      ),
      h('td', {}, h('div', { class: 'admin-actions' }, select, change, remove)),
    );
  };

  const showList = (answer: Admins) => {
    const heads = ['Name', 'Role', 'Enrolled', 'Last sign-in', 'Authenticator', 'Action'];
    list.replaceChildren(
      h(
        'table',
        { class: 'admin-list' },
        h('caption', {}, 'Admins'),
        h('thead', {}, h('tr', {}, ...heads.map((head) => h('th', { scope: 'col' }, head)))),
        h('tbody', {}, ...answer.admins.map(adminRow)),
      ),
      h('h3', {}, 'Pending invites'),
      answer.invites.length
        ? h(
            'ul',
            { class: 'admin-invites' },
            ...answer.invites.map((invite) =>
              h(
                'li',
                {},
                roleName(invite.role),
                h('span', { class: 'muted' }, ' until '),
                when(invite.expires_at),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No pending invites.'),
    );
  };

  const role = h(
    'select',
    { id: 'invite-role', name: 'role' },
    ...roles.map((each) =>
      h('option', { value: each, selected: each === 'admin' || roles.length === 1 }, roleName(each)),
    ),
  );
  const inviteForm = h(
    'form',
    { class: 'admin-invite', 'aria-label': 'Invite an admin' },
    h('div', { class: 'field' }, h('label', { for: role.id }, 'Role of the new admin'), role),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Invite')),
  );
  inviteForm.addEventListener('submit', (event) => {
    event.preventDefault();
    screen.notes.replaceChildren();
    call<{ url: string; expires_at: string; role: string }>('POST', 'admins/invites', {
      role: role.value,
      ...(named ? { organization_id: named } : {}),
    }).then(
      async (made) => {
        if (!screen.current()) return;
        invited.replaceChildren(showInvite(made));
        await read();
      },
      (error: unknown) => refused(screen, error),
    );
  });

  const again = h('button', { type: 'button' }, 'Read again');
  again.addEventListener('click', () => void read());
  screen.body.append(
    h('h2', {}, 'Admins'),
    organizationChooser(session, '#admins', 'The deployment’s operators') ?? '',
    inviteForm,
    invited,
    h('div', { class: 'actions' }, again),
    confirmation,
    list,
  );
  void read();
}

/** The invite's address, once: the service keeps only its hash. */
function showInvite(made: { url: string; expires_at: string; role: string }): HTMLElement {
  const copy = h('button', { type: 'button' }, 'Copy');
  const copied = h('span', { class: 'muted', role: 'status' });
  copy.addEventListener('click', () => {
    navigator.clipboard.writeText(made.url).then(
      () => (copied.textContent = 'Copied.'),
      () => (copied.textContent = 'The browser refused to copy: select the address and copy it.'),
    );
  });
  return h(
    'div',
    { class: 'notice success' },
    h(
      'p',
      {},
      `Invite for a new ${roleName(made.role)}. Give this address to the person; it is shown only once:`,
    ),
    h('p', {}, h('code', { class: 'invite-url' }, made.url)),
    h('p', {}, 'It works once, until ', when(made.expires_at), '.'),
    h('div', { class: 'actions' }, copy, copied),
  );
}
