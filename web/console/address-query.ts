import { h } from '../authenticator/dom.ts';
import { call } from './api.ts';

/**
 * A section's filters in the address, after its id (`#audit/?operation=…`), so that a reload or a shared link keeps
 * them. They sit after a `?` as one query string: values holding `/` (an operation's route) stay whole.
 */
export function addressQuery(): URLSearchParams {
  const hash = location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : hash.slice(at + 1));
}

/** Goes to a section with these filters (left-out or empty values dropped); the section draws itself again. */
export function goWithQuery(section: string, values: Record<string, string | undefined>): void {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) query.set(name, value);
  const text = query.toString();
  location.hash = text ? `#${section}/?${text}` : `#${section}`;
}

/**
 * The operator's organization field: an id, offered from the organizations whose directories the operator sees (the
 * console has no list of organizations by name yet).
 */
export function organizationInput(id: string, value: string): HTMLElement {
  const options = h('datalist', { id: `${id}-options` });
  const input = h('input', {
    type: 'text',
    id,
    name: 'organization_id',
    value,
    list: `${id}-options`,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  call<{ directories: { organization_id: string }[] }>('GET', 'directories').then(
    ({ directories }) => {
      const ids = [...new Set(directories.map((directory) => directory.organization_id))];
      options.replaceChildren(...ids.map((each) => h('option', { value: each })));
    },
    () => undefined,
  );
  return h('div', { class: 'field' }, h('label', { for: id }, 'Organization id'), input, options);
}
