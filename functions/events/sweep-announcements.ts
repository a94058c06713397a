import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { sweepAnnouncements } from '#shared/events/announcement-sweep';
import { observability } from '#shared/observability';

/** The announcement sweep, on a schedule: re-sends the events of answers whose sender died before sending them. */
export const handler = middy<unknown, { sent: number }, Error, Context>(async () => ({
  sent: await sweepAnnouncements(),
})).use(observability());
