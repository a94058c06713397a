import { h, notice } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import type { Directory, ServiceView } from './directories.ts';
import { acting, checkbox, formNote, httpUrlProblem, nameProblem, textInput, wrapperOf } from './inputs.ts';
import {
  choosesOrganization,
  chosenOrganization,
  keepingChoice,
  organizationChooser,
  withOrganization,
} from './organization-choice.ts';
import { type PolicyView, policyEditor } from './policy-editor.ts';
import type { Screen } from './screen.ts';
import { may, refused, type Section } from './section.ts';

/**
 * The organization's services, a directory's and the organization's own, and one service at `#services/<id>`: its
 * details, and for roles that may change services, their edit and the policy editor.
 */
export const servicesSection: Section = {
  id: 'services',
  title: 'Services',
  needs: 'read',
  render: (screen, session, path) =>
    path[0] ? renderService(screen, session, path[0]) : renderServices(screen, session),
};

/** Where a service may be created: a directory, or an organization (its Organization Services). */
interface Place {
  readonly label: string;
  readonly path: string;
}

function renderServices(screen: Screen, session: SessionView): void {
  const organizationId = chosenOrganization(session);
  const lists = h(
    'div',
    { class: 'service-lists', 'aria-live': 'polite' },
    organizationId
      ? h('p', { class: 'muted' }, 'Reading the services…')
      : h('p', { class: 'muted' }, 'Choose an organization to see its services.'),
  );
  const side = h('div', {});
  screen.body.append(
    organizationChooser(session, '#services', 'Choose an organization') ?? '',
    h('div', { class: 'split' }, lists, side),
  );
  if (!organizationId) return;
  void (async () => {
    const { directories } = await call<{ directories: Directory[] }>('GET', 'directories');
    const places: Place[] = [
      ...directories
        .filter((directory) => directory.organization_id === organizationId)
        .map((directory) => ({
          label: `Directory ${directory.name}`,
          path: `directories/${encodeURIComponent(directory.id)}/services`,
        })),
      {
        label: 'The organization itself',
        path: `organizations/${encodeURIComponent(organizationId)}/services`,
      },
    ];
    const found = await Promise.all(
      places.map((place) =>
        call<{ services: ServiceView[] }>('GET', place.path).then((answer) => answer.services),
      ),
    );
    if (!screen.current()) return;
    lists.replaceChildren(
      ...places.map((place, index) =>
        h(
          'section',
          { class: 'service-group', 'aria-label': place.label },
          h('h2', {}, place.label),
          h(
            'ul',
            { class: 'links' },
            ...(found[index]?.length
              ? (found[index] ?? []).map((service) =>
                  h(
                    'li',
                    {},
                    h(
                      'a',
                      { href: keepingChoice(session, `#services/${encodeURIComponent(service.id)}`) },
                      service.name,
                    ),
                    h('span', { class: 'muted' }, service.active ? ' · Active' : ' · Inactive'),
                  ),
                )
              : [h('li', { class: 'muted' }, 'No services.')]),
          ),
        ),
      ),
    );
    if (may(session, 'service-write')) side.append(createForm(session, places));
  })().catch((error: unknown) => refused(screen, error));
}

/** The fields of a service, as the create and the edit forms both ask for them. */
function serviceFields(service?: ServiceView) {
  const customIcon = service && !service.icon.endsWith('/public/v3/icons/service.svg') ? service.icon : '';
  return {
    name: textInput('Service name', { value: service?.name, hint: 'What users see on their device.' }),
    description: textInput('Description', { value: service?.description, hint: 'Optional.' }),
    icon: textInput('Icon URL', {
      value: customIcon,
      hint: 'Optional: an image address, https://…',
      inputmode: 'url',
    }),
    callback: textInput('Callback URL', {
      value: service?.callback_url,
      hint: 'Optional: where the service sends this service’s webhooks, https://…',
      inputmode: 'url',
    }),
    active: checkbox('Active', service?.active ?? true),
  };
}

type Fields = ReturnType<typeof serviceFields>;

/** The fields' values as the API takes them (empty optional fields cleared), or why they will not do. */
function readFields(fields: Fields): { body: Record<string, unknown> } | { wrong: string } {
  const wrong =
    nameProblem('Service name', fields.name.value) ??
    (fields.description.value.length > 1000
      ? 'The description must be at most 1000 characters.'
      : undefined) ??
    (fields.icon.value.trim() ? httpUrlProblem('The icon URL', fields.icon.value.trim()) : undefined) ??
    (fields.callback.value.trim()
      ? httpUrlProblem('The callback URL', fields.callback.value.trim())
      : undefined);
  if (wrong) return { wrong };
  const optional = (input: HTMLInputElement) => input.value.trim() || null;
  return {
    body: {
      name: fields.name.value.trim(),
      description: optional(fields.description),
      icon: optional(fields.icon),
      callback_url: optional(fields.callback),
      active: fields.active.checked,
    },
  };
}

/** The create form, with where the new service belongs; on success the new service's page. */
function createForm(session: SessionView, places: readonly Place[]): HTMLElement {
  const where = h(
    'select',
    { id: 'service-place' },
    ...places.map((place, index) => h('option', { value: String(index) }, place.label)),
  );
  return serviceForm(
    undefined,
    h('div', { class: 'field' }, h('label', { for: where.id }, 'Belongs to'), where),
    async (body) => {
      const place = places[Number(where.value)];
      if (!place) return 'Choose where the service belongs.';
      const created = await call<ServiceView>('POST', place.path, body);
      location.hash = keepingChoice(session, `#services/${encodeURIComponent(created.id)}`);
      return undefined;
    },
  );
}

/**
 * The form of a service's fields: a new one's (`service` undefined, `where` asking where it belongs) or a change of
 * `service`. `send` gets the checked fields as the API takes them and answers what is wrong, if the page sees it.
 */
function serviceForm(
  service: ServiceView | undefined,
  where: HTMLElement | undefined,
  send: (body: Record<string, unknown>) => Promise<string | undefined>,
): HTMLElement {
  const fields = serviceFields(service);
  const note = formNote();
  const title = service ? 'Change the service' : 'New service';
  const button = h(
    'button',
    { type: 'submit', ...(service ? {} : { class: 'primary' }) },
    service ? 'Save service' : 'Create service',
  );
  const form = h(
    'form',
    { class: service ? 'edit' : 'panel create', 'aria-label': title, novalidate: true },
    h(service ? 'h3' : 'h2', {}, title),
    where,
    ...Object.values(fields).map(wrapperOf),
    note.element,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const read = readFields(fields);
    if ('wrong' in read) return note.say(read.wrong);
    void acting(button, note, async () => {
      const wrong = await send(read.body);
      if (wrong) note.say(wrong);
    });
  });
  return form;
}

function renderService(screen: Screen, session: SessionView, id: string): void {
  const path = `services/${encodeURIComponent(id)}`;
  const details = h('section', { id: 'service-details', class: 'details', 'aria-label': 'Service details' });
  const back = h('a', { href: '#services' }, 'All services');
  screen.body.append(h('p', {}, back), details);
  call<ServiceView & { policy: PolicyView }>('GET', path).then(
    (service) => {
      if (!screen.current()) return;
      if (choosesOrganization(session)) back.href = withOrganization('#services', service.organization_id);
      const { policy, ...shown } = service;
      const draw = (changed: ServiceView) => {
        if (!screen.current()) return;
        details.replaceChildren(...serviceDetails(session, changed));
        if (may(session, 'service-write')) details.append(editForm(changed, path, draw));
      };
      draw(shown);
      const editor = policyEditor(policy, may(session, 'service-write'), path);
      screen.body.append(editor);
    },
    (error: unknown) => refused(screen, error),
  );
}

function serviceDetails(session: SessionView, service: ServiceView): Node[] {
  const row = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];
  return [
    h('h2', {}, service.name),
    h(
      'dl',
      {},
      ...row('State', service.active ? 'Active' : 'Inactive'),
      ...row('Service id', service.id),
      ...row('Belongs to', service.directory_id ? `Directory ${service.directory_id}` : 'The organization'),
      ...row('Description', service.description || 'None'),
      ...row('Icon URL', service.icon),
      ...row('Callback URL', service.callback_url ?? 'None'),
    ),
    ...(service.directory_id
      ? [
          h(
            'p',
            {},
            h(
              'a',
              { href: keepingChoice(session, `#directories/${encodeURIComponent(service.directory_id)}`) },
              'Open its directory',
            ),
          ),
        ]
      : []),
  ];
}

/** The edit form of a service: the change saved, the details drawn again with a word that it was. */
function editForm(service: ServiceView, path: string, draw: (changed: ServiceView) => void): HTMLElement {
  return serviceForm(service, undefined, async (body) => {
    const changed = await call<ServiceView>('PATCH', path, body);
    draw(changed);
    document
      .querySelector('#service-details .form-note')
      ?.replaceChildren(notice('Service saved.', 'success'));
    return undefined;
  });
}
