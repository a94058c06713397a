import { h } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import { addressQuery, goWithQuery } from './address-query.ts';
import { choosesOrganization, organizationChooser } from './organization-choice.ts';
import type { Screen } from './screen.ts';
import { refused, type Section } from './section.ts';
import { roleNames } from './words.ts';

/** A record as GET /console/api/audit/records answers it (docs/console.md#audit-trail). */
interface AuditRecord {
  readonly time: string;
  readonly actor_type: string;
  readonly actor_id: string;
  readonly admin_name?: string;
  readonly admin_role?: string;
  readonly operation: string;
  readonly directory_id?: string;
  readonly service_id?: string;
  readonly user?: string;
  readonly device_id?: string;
  readonly target_id?: string;
  readonly outcome: string;
  readonly status: number;
  readonly error_code?: string;
}

interface AuditPage {
  readonly records: readonly AuditRecord[];
  readonly cursor?: string;
}

/** The filters GET audit/records takes besides the range, each an exact match. */
const textFilters = [
  ['actor', 'Actor', 'console:<admin id>, admin-cli:<account>, or an entity’s id'],
  ['operation', 'Operation', 'A method and route, as PATCH /console/api/directories/{id}'],
  ['user', 'User', 'The directory user’s identifier'],
  ['service', 'Service id', undefined],
] as const;

const outcomes = ['success', 'refused', 'failed'];
const pageSize = '50';
const day = 24 * 3600 * 1000;

/** The organization's audit trail: filters kept in the address, pages through the API's cursor, CSV and JSON export. */
export const auditSection: Section = {
  id: 'audit',
  title: 'Audit trail',
  needs: 'read',
  render: (screen, session) => renderAudit(screen, session),
};

/** `2026-11-28T04:40` in the browser's time zone, as a datetime-local field holds it. */
function localInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function renderAudit(screen: Screen, session: SessionView): void {
  const address = addressQuery();
  const now = Date.now();
  // Without a range in the address: the last 7 days, up to a minute ahead so that what just happened is in.
  const query: Record<string, string> = {
    since: address.get('since') ?? new Date(now - 7 * day).toISOString(),
    until: address.get('until') ?? new Date(now + 60_000).toISOString(),
  };
  for (const name of ['actor', 'operation', 'user', 'service', 'outcome', 'organization_id'])
    if (address.get(name)) query[name] = address.get(name) as string;

  const input = (name: string, value: string, type = 'text') =>
    h('input', { type, id: `audit-${name}`, name, value, autocomplete: 'off', spellcheck: 'false' });
  const labelled = (name: string, label: string, control: HTMLElement, hint?: string) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: control.id }, label),
      control,
      hint ? h('p', { class: 'hint' }, hint) : undefined,
    );
  const since = input('since', localInput(query.since ?? ''), 'datetime-local');
  const until = input('until', localInput(query.until ?? ''), 'datetime-local');
  const outcome = h(
    'select',
    { id: 'audit-outcome', name: 'outcome' },
    h('option', { value: '' }, 'Any'),
    ...outcomes.map((each) => h('option', { value: each, selected: query.outcome === each }, each)),
  );
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filters' },
    organizationChooser(session, '#audit/', 'Choose an organization'),
    labelled('since', 'From', since),
    labelled('until', 'Until', until, 'At most 31 days apart.'),
    ...textFilters.map(([name, label, hint]) => labelled(name, label, input(name, query[name] ?? ''), hint)),
    labelled('outcome', 'Outcome', outcome),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values: Record<string, string | undefined> = {};
    for (const [name, value] of new FormData(form))
      values[name] = typeof value === 'string' ? value.trim() : undefined;
    for (const name of ['since', 'until'] as const) {
      const date = new Date(values[name] ?? '');
      values[name] = Number.isNaN(date.getTime()) ? undefined : date.toISOString();
    }
    goWithQuery('audit', values);
  });

  const exportQuery = new URLSearchParams(query);
  const exportLink = (format: 'csv' | 'json', label: string) => {
    exportQuery.set('format', format);
    return h('a', { href: `api/audit/export?${exportQuery}`, download: '', class: 'export' }, label);
  };
  const exports = h(
    'p',
    { class: 'exports' },
    'Export these records: ',
    exportLink('csv', 'CSV'),
    ' · ',
    exportLink('json', 'JSON'),
  );

  const rows = h('tbody', {});
  const table = h(
    'table',
    { class: 'audit' },
    h('caption', {}, 'Audit records, newest first'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['When', 'Actor', 'Operation', 'Target', 'Outcome'].map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    rows,
  );
  const status = h('p', { class: 'muted', role: 'status' }, 'Reading the audit trail…');
  const more = h('button', { type: 'button', hidden: true }, 'Show older records');
  screen.body.append(form, exports, status, h('div', { class: 'table-wrap' }, table), more);

  if (choosesOrganization(session) && !query.organization_id) {
    status.textContent = 'Choose an organization to read its audit trail.';
    exports.hidden = true;
    return;
  }
  let shown = 0;
  const read = (cursor?: string) => {
    const asked = new URLSearchParams({ ...query, limit: pageSize, ...(cursor ? { cursor } : {}) });
    more.disabled = true;
    call<AuditPage>('GET', `audit/records?${asked}`).then(
      (page) => {
        if (!screen.current()) return;
        rows.append(...page.records.map(recordRow));
        shown += page.records.length;
        status.textContent = shown
          ? `${shown} record${shown === 1 ? '' : 's'} shown${page.cursor ? '; older ones follow' : ''}.`
          : 'No records match these filters.';
        more.hidden = page.cursor === undefined;
        more.disabled = false;
        more.onclick = () => read(page.cursor);
      },
      (error: unknown) => {
        status.textContent = '';
        refused(screen, error);
      },
    );
  };
  read();
}

function recordRow(record: AuditRecord): HTMLElement {
  const actor =
    record.actor_type === 'console'
      ? [
          h('span', { class: 'actor-name' }, record.admin_name ?? record.actor_id),
          h(
            'span',
            { class: 'muted' },
            ` · ${roleNames[record.admin_role ?? ''] ?? record.admin_role ?? 'admin'}`,
          ),
        ]
      : [record.actor_id];
  const targets = [
    record.target_id && `target ${record.target_id}`,
    record.directory_id && `directory ${record.directory_id}`,
    record.service_id && `service ${record.service_id}`,
    record.user !== undefined && `user ${record.user}`,
    record.device_id && `device ${record.device_id}`,
  ].filter((each): each is string => typeof each === 'string' && each !== '');
  const time = new Date(record.time);
  return h(
    'tr',
    {},
    h('td', {}, h('time', { datetime: record.time }, time.toLocaleString())),
    h('td', {}, ...actor),
    h('td', { class: 'operation' }, record.operation),
    h('td', { class: 'targets' }, ...targets.flatMap((each) => [h('span', {}, each), ' '])),
    h(
      'td',
      { class: `outcome ${record.outcome}` },
      `${record.outcome} (${record.status}${record.error_code ? ` ${record.error_code}` : ''})`,
    ),
  );
}
