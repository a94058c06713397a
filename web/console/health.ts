import { h } from '../authenticator/dom.ts';
import { call, type SessionView } from './api.ts';
import { addressQuery, goWithQuery } from './address-query.ts';
import { type Bar, type BarSeries, stackedBars } from './chart.ts';
import { organizationChooser } from './organization-choice.ts';
import {
  type AuthOutcome,
  authOutcomes,
  maxHealthOrganizations,
  type PushProviderName,
  pushProviderNames,
} from '#shared/domain/health';
import type { Screen } from './screen.ts';
import { refused, type Section } from './section.ts';

/** A provider's figures as GET /console/api/health answers them (docs/console.md#health). */
interface PushFigures {
  readonly sent: number;
  readonly failed: number;
  readonly gone: number;
  readonly p95_ms: number | null;
}

// The server's own lists: the page shows the providers and outcomes health counts, in its order.
const providers = pushProviderNames;
type Provider = PushProviderName;
const outcomes = authOutcomes;
type Outcome = AuthOutcome;

/** How auth requests ended, and the time to the user's answer (bounds of histogram bins, ms). */
interface AuthFigures {
  readonly auth_requests: Readonly<Record<Outcome, number>>;
  readonly approval_latency_ms: { readonly p50: number | null; readonly p95: number | null };
}

interface Health {
  readonly organization_id: string | null;
  readonly from: string;
  readonly to: string;
  readonly bucket_seconds: number;
  readonly complete: boolean;
  readonly totals: AuthFigures & { readonly pushes: Readonly<Record<Provider, PushFigures>> };
  readonly buckets: readonly (AuthFigures & {
    readonly start: string;
    readonly pushes: Readonly<Record<Provider, PushFigures>>;
  })[];
}

const providerNames: Readonly<Record<Provider, string>> = {
  webpush: 'Web push',
  apns: 'Apple (APNs)',
  fcm: 'Firebase (FCM)',
};
const hourChoices = ['1', '6', '24', '168'];
const hourNames: Readonly<Record<string, string>> = {
  '1': 'Last hour',
  '6': 'Last 6 hours',
  '24': 'Last 24 hours',
  '168': 'Last week',
};
const series: readonly BarSeries[] = [
  { className: 'bar-sent', label: 'Sent' },
  { className: 'bar-failed', label: 'Failed' },
  { className: 'bar-gone', label: 'Gone' },
];

const outcomeNames: Readonly<Record<Outcome, string>> = {
  answered: 'Answered (approved or denied)',
  denied: 'Denied, seen by the service',
  failed: 'Failed (wrong codes)',
  expired: 'Expired',
  cancelled: 'Cancelled',
};
const outcomeSeries: readonly BarSeries[] = outcomes.map((outcome) => ({
  className: `bar-${outcome}`,
  label: outcomeNames[outcome],
}));

/** Auth requests by outcome and push deliveries by provider over time: a chart per provider, and the same figures in tables. */
export const healthSection: Section = {
  id: 'health',
  title: 'Health',
  needs: 'read',
  render: (screen, session) => renderHealth(screen, session),
};

const milliseconds = (ms: number | null) => (ms === null ? '—' : `≤ ${ms.toLocaleString()} ms`);

function renderHealth(screen: Screen, session: SessionView): void {
  const address = addressQuery();
  const hours = hourChoices.includes(address.get('hours') ?? '') ? (address.get('hours') as string) : '24';
  const organizationId = address.get('organization_id') ?? '';

  const select = h(
    'select',
    { id: 'health-hours', name: 'hours' },
    ...hourChoices.map((each) => h('option', { value: each, selected: each === hours }, hourNames[each])),
  );
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Range' },
    organizationChooser(
      session,
      '#health/',
      `Every organization together (the first ${maxHealthOrganizations} at most)`,
    ),
    h('div', { class: 'field' }, h('label', { for: select.id }, 'Range'), select),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values: Record<string, string> = {};
    for (const [name, value] of new FormData(form))
      if (typeof value === 'string') values[name] = value.trim();
    goWithQuery('health', values);
  });
  const shown = h('div', { class: 'health', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Reading…'));
  screen.body.append(form, shown);

  const query = new URLSearchParams({
    hours,
    ...(organizationId ? { organization_id: organizationId } : {}),
  });
  call<Health>('GET', `health?${query}`).then(
    (health) => {
      if (screen.current())
        shown.replaceChildren(
          ...authFigures(health, hourNames[hours] ?? ''),
          ...healthFigures(health, hourNames[hours] ?? ''),
        );
    },
    (error: unknown) => {
      shown.replaceChildren();
      refused(screen, error);
    },
  );
}

/** Where a range's buckets stand: its first moment and how many bucket slots it has. */
function slotsOf(health: Health): { readonly from: number; readonly slots: number } {
  const from = Date.parse(health.from);
  return {
    from,
    slots: Math.max(1, Math.round((Date.parse(health.to) - from) / (health.bucket_seconds * 1000))),
  };
}

const legendOf = (shown: readonly BarSeries[]) =>
  h(
    'ul',
    { class: 'legend', 'aria-hidden': 'true' },
    ...shown.map((each) => h('li', {}, h('span', { class: `swatch ${each.className}` }), each.label)),
  );

const headRow = (names: readonly string[]) =>
  h('thead', {}, h('tr', {}, ...names.map((name) => h('th', { scope: 'col' }, name))));

/** Auth requests by outcome over the range, as a table, a chart and a table per bucket, and the time to answers. */
function authFigures(health: Health, range: string): Node[] {
  const { from, slots } = slotsOf(health);
  const latency = health.totals.approval_latency_ms;
  const totals = h(
    'table',
    { class: 'figures', id: 'health-auth-totals' },
    h('caption', {}, `Auth requests by outcome, ${range.toLowerCase()}`),
    headRow(['Outcome', 'Requests']),
    h(
      'tbody',
      {},
      ...outcomes.map((outcome) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, outcomeNames[outcome]),
          h('td', {}, String(health.totals.auth_requests[outcome])),
        ),
      ),
    ),
  );
  const times = h(
    'p',
    { id: 'health-auth-latency' },
    `Time to the user's answer: median ${milliseconds(latency.p50)}, 95th percentile ${milliseconds(latency.p95)}.`,
  );
  const titled = `Auth requests by outcome per ${health.bucket_seconds / 60} minutes`;
  const bars: Bar[] = health.buckets.map((bucket) => ({
    slot: Math.floor((Date.parse(bucket.start) - from) / (health.bucket_seconds * 1000)),
    values: outcomes.map((outcome) => bucket.auth_requests[outcome]),
  }));
  const rows = health.buckets.filter((bucket) =>
    outcomes.some((outcome) => bucket.auth_requests[outcome] > 0),
  );
  const perBucket = h(
    'table',
    { class: 'figures', id: 'health-auth-buckets' },
    h('caption', {}, `Auth requests, per ${health.bucket_seconds / 60} minutes`),
    headRow(['From', ...outcomes.map((outcome) => outcomeNames[outcome]), 'Median to answer']),
    h(
      'tbody',
      {},
      ...(rows.length
        ? rows.map((bucket) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, new Date(bucket.start).toLocaleString()),
              ...outcomes.map((outcome) => h('td', {}, String(bucket.auth_requests[outcome]))),
              h('td', {}, milliseconds(bucket.approval_latency_ms.p50)),
            ),
          )
        : [h('tr', {}, h('td', { colspan: outcomes.length + 2 }, 'No auth requests ended in this range.'))]),
    ),
  );
  return [
    h('h2', {}, 'Auth requests'),
    totals,
    times,
    legendOf(outcomeSeries),
    h(
      'figure',
      { class: 'chart-figure' },
      h('figcaption', {}, titled),
      stackedBars(titled, outcomeSeries, bars, slots, 'health-auth-buckets'),
    ),
    h('details', {}, h('summary', {}, 'Auth requests per bucket'), perBucket),
  ];
}

function healthFigures(health: Health, range: string): Node[] {
  const { from, slots } = slotsOf(health);
  const legend = legendOf(series);
  const totals = h(
    'table',
    { class: 'figures', id: 'health-totals' },
    h('caption', {}, `Push deliveries by provider, ${range.toLowerCase()}`),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Provider', 'Sent', 'Failed', 'Gone', 'p95 to the provider'].map((name) =>
          h('th', { scope: 'col' }, name),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...providers.map((provider) => {
        const figures = health.totals.pushes[provider];
        return h(
          'tr',
          {},
          h('th', { scope: 'row' }, providerNames[provider]),
          h('td', {}, String(figures.sent)),
          h('td', {}, String(figures.failed)),
          h('td', {}, String(figures.gone)),
          h('td', {}, milliseconds(figures.p95_ms)),
        );
      }),
    ),
  );
  const charts = providers.map((provider) => {
    const bars: Bar[] = health.buckets.map((bucket) => ({
      slot: Math.floor((Date.parse(bucket.start) - from) / (health.bucket_seconds * 1000)),
      values: [bucket.pushes[provider].sent, bucket.pushes[provider].failed, bucket.pushes[provider].gone],
    }));
    const titled = `Push deliveries to ${providerNames[provider]} per ${health.bucket_seconds / 60} minutes`;
    return h(
      'figure',
      { class: 'chart-figure' },
      h('figcaption', {}, titled),
      stackedBars(titled, series, bars, slots, `health-buckets-${provider}`),
    );
  });
  const perBucket = providers.map((provider) => {
    const rows = health.buckets.filter((bucket) => {
      const figures = bucket.pushes[provider];
      return figures.sent + figures.failed + figures.gone > 0;
    });
    return h(
      'table',
      { class: 'figures', id: `health-buckets-${provider}` },
      h('caption', {}, `${providerNames[provider]}, per ${health.bucket_seconds / 60} minutes`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['From', 'Sent', 'Failed', 'Gone', 'p95 to the provider'].map((name) =>
            h('th', { scope: 'col' }, name),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...(rows.length
          ? rows.map((bucket) => {
              const figures = bucket.pushes[provider];
              return h(
                'tr',
                {},
                h('th', { scope: 'row' }, new Date(bucket.start).toLocaleString()),
                h('td', {}, String(figures.sent)),
                h('td', {}, String(figures.failed)),
                h('td', {}, String(figures.gone)),
                h('td', {}, milliseconds(figures.p95_ms)),
              );
            })
          : [h('tr', {}, h('td', { colspan: 5 }, 'No pushes in this range.'))]),
      ),
    );
  });
  const parts: (Node | undefined)[] = [
    h('h2', {}, 'Push deliveries'),
    health.complete ? undefined : h('p', { class: 'notice info' }, 'The range was read only in part.'),
    totals,
    legend,
    h('div', { class: 'charts' }, ...charts),
    h('details', {}, h('summary', {}, 'Figures per bucket'), ...perBucket),
  ];
  return parts.filter((each): each is Node => each !== undefined);
}
