import { sameOrganization } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import {
  addHistograms,
  authOutcomes,
  healthBucketSeconds,
  healthRange,
  histogramQuantile,
  maxHealthOrganizations,
  pushProviderNames,
} from '#shared/domain/health';
import { ApiError } from '#shared/errors';
import { type HealthItem, readHealth } from '#shared/store/health-metrics';
import { getOrganization, listOrganizations } from '#shared/store/organizations';

interface PushFigures {
  readonly sent: number;
  readonly failed: number;
  readonly gone: number;
  /** The 95th percentile of the time to the provider's answer, as the bound of its histogram bucket; null for none. */
  readonly p95_ms: number | null;
}

interface Figures {
  readonly auth_requests: Readonly<Record<(typeof authOutcomes)[number], number>>;
  readonly approval_latency_ms: { readonly p50: number | null; readonly p95: number | null };
  readonly pushes: Readonly<Record<(typeof pushProviderNames)[number], PushFigures>>;
}

export interface ConsoleHealth {
  readonly organization_id: string | null;
  /** ISO 8601: the start of the first bucket and the end of the last. */
  readonly from: string;
  readonly to: string;
  readonly bucket_seconds: number;
  /** False when the read stopped at its bound before the end of the range. */
  readonly complete: boolean;
  readonly totals: Figures;
  /** Every bucket of the range with something in it, oldest first. */
  readonly buckets: readonly (Figures & { readonly start: string })[];
}

const quantile = (histogram: readonly number[], q: number) => histogramQuantile(histogram, q)?.ms ?? null;

function figures(items: readonly HealthItem[]): Figures {
  const sum = (selected: readonly HealthItem[], counter: string) =>
    selected.reduce((total, item) => total + (item.counts[counter] ?? 0), 0);
  const auth = items.filter((item) => item.subject.kind === 'auth');
  const latency = addHistograms(...auth.map((item) => item.histogram));
  const pushes = Object.fromEntries(
    pushProviderNames.map((provider) => {
      const mine = items.filter((item) => item.subject.kind === 'push' && item.subject.provider === provider);
      return [
        provider,
        {
          sent: sum(mine, 'sent'),
          failed: sum(mine, 'failed'),
          gone: sum(mine, 'gone'),
          p95_ms: quantile(addHistograms(...mine.map((item) => item.histogram)), 0.95),
        },
      ];
    }),
  ) as Figures['pushes'];
  return {
    auth_requests: Object.fromEntries(
      authOutcomes.map((outcome) => [outcome, sum(auth, outcome)]),
    ) as Figures['auth_requests'],
    approval_latency_ms: { p50: quantile(latency, 0.5), p95: quantile(latency, 0.95) },
    pushes,
  };
}

/**
 * GET /console/api/health: the admin's organization's health over the last `hours` (at most a week), in 5-minute
 * buckets. The operator names an organization, or reads every organization's together (up to
 * `maxHealthOrganizations`). Another organization's id answers as an unknown one.
 */
export async function consoleHealth(
  admin: ConsoleSession,
  query: { readonly hours: number; readonly organizationId: string | undefined },
  now: Date,
): Promise<ConsoleHealth> {
  const organizationIds = await organizationsOf(admin, query.organizationId);
  const { from, to } = healthRange(now, query.hours);
  const reads = await Promise.all(organizationIds.map((id) => readHealth(id, from, to)));
  const items = reads.flatMap((read) => read.items);
  const byBucket = new Map<number, HealthItem[]>();
  for (const item of items) byBucket.set(item.start, [...(byBucket.get(item.start) ?? []), item]);
  return {
    organization_id:
      organizationIds.length === 1 && organizationIds[0] !== undefined ? organizationIds[0] : null,
    from: new Date(from * 1000).toISOString(),
    to: new Date((to + healthBucketSeconds) * 1000).toISOString(),
    bucket_seconds: healthBucketSeconds,
    complete: reads.every((read) => read.complete),
    totals: figures(items),
    buckets: [...byBucket.entries()]
      .sort(([a], [b]) => a - b)
      .map(([start, bucket]) => ({ start: new Date(start * 1000).toISOString(), ...figures(bucket) })),
  };
}

async function organizationsOf(admin: ConsoleSession, asked: string | undefined): Promise<string[]> {
  if (asked !== undefined) {
    const known = sameOrganization(admin, asked) && (await getOrganization(asked)) !== undefined;
    if (!known) throw new ApiError('CON-004', 'No such organization');
    return [asked];
  }
  if (admin.organizationId !== null) return [admin.organizationId];
  if (admin.role !== 'operator') return [];
  const all = (await listOrganizations()).map((organization) => organization.id);
  return all.slice(0, maxHealthOrganizations);
}
