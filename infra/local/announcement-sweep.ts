import { lambdaContext } from '#infra/local/lambda-context';
import { announcementSweep } from '#infra/routes';
import { logger } from '#shared/log';
import { withTableGrant } from '#shared/store/table-grant-check';

/**
 * The local stand-in for the sweep's EventBridge schedule: the same handler, every `ANNOUNCEMENT_SWEEP_INTERVAL_MS`
 * (a minute by default, as in AWS), one run at a time. Returns what stops it, after the run in progress.
 */
export async function startAnnouncementSweep(): Promise<() => Promise<void>> {
  const { handler } = await import('#functions/events/sweep-announcements');
  const configured = Number(process.env.ANNOUNCEMENT_SWEEP_INTERVAL_MS);
  const intervalMs =
    Number.isFinite(configured) && configured > 0 ? configured : announcementSweep.intervalSeconds * 1000;
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = withTableGrant(announcementSweep.handler, announcementSweep.access.table, () =>
      handler(undefined, lambdaContext(announcementSweep.handler, announcementSweep.timeoutSeconds * 1000)),
    )
      .catch((error: unknown) => logger.error('Announcement sweep failed', { error }))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
