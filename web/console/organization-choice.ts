import { h } from '../authenticator/dom.ts';
import { addressQuery } from './address-query.ts';
import { call, type SessionView } from './api.ts';

/** An organization as GET /console/api/organizations lists it for the operator. */
interface Organization {
  readonly id: string;
  readonly name: string;
}

/** The address's query field holding the operator's choice, as the API names it. */
const field = 'organization_id';

/** Whether the signed-in admin is above every organization and so chooses one; anyone else works in their own. */
export const choosesOrganization = (session: SessionView): boolean =>
  session.organization_id === null && session.role === 'operator';

/** The organization a page shows: the admin's own, or the one the operator chose in the address (if any). */
export function chosenOrganization(session: SessionView): string | undefined {
  if (session.organization_id !== null) return session.organization_id;
  return choosesOrganization(session) ? addressQuery().get(field) || undefined : undefined;
}

/** `#<section>/<path>` with the operator's choice kept after it, so a reload and a link keep it. */
export function withOrganization(hash: string, organizationId: string | undefined): string {
  return organizationId ? `${hash}?${new URLSearchParams({ [field]: organizationId })}` : hash;
}

/**
 * `#<section>/<path>` keeping the operator's choice in the address, for the navigation and a page's own links: the
 * choice follows the operator through every section, those showing every organization's at once (directories, users,
 * dead letters) passing it on unread. Anyone else's addresses stay as they are.
 */
export const keepingChoice = (session: SessionView, hash: string): string =>
  withOrganization(hash, choosesOrganization(session) ? chosenOrganization(session) : undefined);

/**
 * The operator's organization chooser, shared by the admins, keys, services, audit and health pages: the organizations
 * by name (GET /console/api/organizations), the choice put in the address as `?organization_id=<id>` after `hash`,
 * beside the page's other filters there (the audit trail's range …). `none` names what the page shows when no
 * organization is chosen. Nothing for anyone else.
 */
export function organizationChooser(
  session: SessionView,
  hash: string,
  none: string,
): HTMLElement | undefined {
  if (!choosesOrganization(session)) return undefined;
  const chosen = chosenOrganization(session) ?? '';
  const select = h(
    'select',
    { id: 'organization-choice', name: field },
    h('option', { value: chosen }, chosen ? `Organization ${chosen}` : none),
  );
  const status = h('span', { class: 'muted', role: 'status' }, 'Reading the organizations…');
  call<{ organizations: Organization[]; more: boolean; max: number }>('GET', 'organizations').then(
    ({ organizations, more, max }) => {
      select.replaceChildren(
        h('option', { value: '' }, none),
        ...organizations.map((organization) =>
          h('option', { value: organization.id }, `${organization.name} (${organization.id})`),
        ),
      );
      // A chosen id beyond the listed ones (the list is bounded) stays chosen.
      if (chosen && !organizations.some((organization) => organization.id === chosen))
        select.append(h('option', { value: chosen }, `Organization ${chosen}`));
      select.value = chosen;
      status.textContent = more ? `The first ${max} organizations.` : '';
    },
    () => (status.textContent = 'The organizations could not be read.'),
  );
  select.addEventListener('change', () => {
    const query = addressQuery();
    if (select.value) query.set(field, select.value);
    else query.delete(field);
    location.hash = query.toString() ? `${hash}?${query}` : hash;
  });
  return h(
    'div',
    { class: 'field organization-choice' },
    h('label', { for: select.id }, 'Organization'),
    select,
    status,
  );
}
