import { h } from '../authenticator/dom.ts';
import { call } from './api.ts';
import type { Screen } from './screen.ts';
import { refused, type Section } from './section.ts';

/** A directory as GET /console/api/directories lists it. */
interface Directory {
  readonly id: string;
  readonly organization_id: string;
  readonly name: string;
  readonly active: boolean;
  readonly service_ids: readonly string[];
  readonly sdk_key_count: number;
  readonly webhook_url: string | null;
  readonly denial_context_inquiry_enabled: boolean;
}

/** The directories of the admin's organization, each with its details on demand. */
export const directoriesSection: Section = {
  id: 'directories',
  title: 'Directories',
  needs: 'read',
  render: (screen) => renderDirectories(screen),
};

function renderDirectories(screen: Screen): void {
  const list = h('ul', { class: 'directories', 'aria-label': 'Directories' });
  const details = h('section', {
    id: 'directory-details',
    class: 'details',
    'aria-live': 'polite',
    'aria-label': 'Directory details',
  });
  screen.body.append(h('div', { class: 'split' }, h('div', {}, list), details));
  list.append(h('li', { class: 'muted' }, 'Reading the directories…'));
  call<{ directories: Directory[] }>('GET', 'directories').then(
    ({ directories }) => {
      if (!screen.current()) return;
      list.replaceChildren(
        ...(directories.length
          ? directories.map((directory) => directoryItem(screen, directory, details))
          : [h('li', { class: 'muted' }, 'No directories yet.')]),
      );
    },
    (error: unknown) => refused(screen, error),
  );
}

function directoryItem(screen: Screen, directory: Directory, details: HTMLElement): HTMLElement {
  const open = h(
    'button',
    {
      type: 'button',
      class: 'directory',
      'aria-controls': 'directory-details',
      'data-directory': directory.id,
    },
    h('span', { class: 'directory-name' }, directory.name),
    h('span', { class: 'muted' }, directory.active ? 'Active' : 'Inactive'),
  );
  open.addEventListener('click', () => {
    for (const each of open.closest('ul')?.querySelectorAll('button[aria-pressed]') ?? [])
      each.setAttribute('aria-pressed', 'false');
    open.setAttribute('aria-pressed', 'true');
    call<Directory>('GET', `directories/${encodeURIComponent(directory.id)}`).then(
      (shown) => {
        if (screen.current()) details.replaceChildren(...directoryDetails(shown));
      },
      (error: unknown) => refused(screen, error),
    );
  });
  open.setAttribute('aria-pressed', 'false');
  return h('li', {}, open);
}

function directoryDetails(directory: Directory): Node[] {
  const row = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];
  return [
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
  ];
}
