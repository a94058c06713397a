import { publishEvent } from '#shared/events/publish';
import { logger } from '#shared/log';
import { countMetric } from '#shared/metrics';
import { claimAnnouncement, type DueAnnouncement, dueAnnouncements } from '#shared/store/announcements';

/**
 * How long an answer's event may take to reach the webhook worker before the sweep sends it again. The worker clears
 * the mark within seconds of the answer; only an event whose sender died (or whose queue backlog is older than this)
 * is still due after it.
 */
export const defaultGraceSeconds = 120;

/** The grace period of this process: `ANNOUNCEMENT_GRACE_SECONDS`, or {@link defaultGraceSeconds}. */
export function graceSeconds(): number {
  const text = process.env.ANNOUNCEMENT_GRACE_SECONDS;
  const configured = text ? Number(text) : Number.NaN;
  return Number.isFinite(configured) && configured >= 0 ? configured : defaultGraceSeconds;
}

/** Announcements sent at once: a backlog after an outage drains in seconds without flooding the queue. */
const parallelSends = 10;

/**
 * One sweep: every answer still marked due a grace period after it was marked is claimed (so a concurrent sweep
 * skips it) and its event sent again. Returns how many were sent. A send that fails fails the sweep once the others
 * are done; its claimed answer is due again one grace period later.
 */
export async function sweepAnnouncements(now = new Date()): Promise<number> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const due = await dueAnnouncements(nowSeconds - graceSeconds());
  let sent = 0;
  const failures: unknown[] = [];
  for (let start = 0; start < due.length; start += parallelSends) {
    const outcomes = await Promise.allSettled(
      due.slice(start, start + parallelSends).map((each) => announce(each, nowSeconds)),
    );
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') failures.push(outcome.reason);
      else if (outcome.value) sent++;
    }
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} announcements could not be sent`);
  return sent;
}

/** Claims one due announcement and sends its event; false when another sweep or the worker got there first. */
async function announce(due: DueAnnouncement, nowSeconds: number): Promise<boolean> {
  if (!(await claimAnnouncement(due, nowSeconds))) return false;
  // Something died between the answer's write and its send: say so, it is worth an operator's look.
  logger.warn('Answer announced by the sweep', { authRequestId: due.authId, dueSince: due.dueAt });
  await publishEvent({ kind: 'authorization-response', authRequestId: due.authId });
  countMetric('EventsSwept');
  return true;
}
