import * as v from 'valibot';
import { type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { maxHealthHours } from '#shared/domain/health';
import { ApiError, invalidArgument } from '#shared/errors';
import { consoleHealth } from '#shared/use-cases/console-health';

const uuid = v.pipe(v.string(), v.uuid());

/** The console's health endpoints (docs/console.md#health). */
export const healthEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/health',
    needs: 'read',
    schema: undefined,
    handle: async ({ event, session, now }) => {
      if (!session) throw new Error('The console pipeline gave a session endpoint no session');
      const query = event.queryStringParameters ?? {};
      const hours = query.hours === undefined ? 24 : Number(query.hours);
      if (!Number.isInteger(hours) || hours < 1 || hours > maxHealthHours) {
        throw invalidArgument(`hours must be a whole number from 1 to ${maxHealthHours}`);
      }
      const organizationId = query.organization_id;
      if (organizationId !== undefined && !v.is(uuid, organizationId)) {
        throw new ApiError('CON-004', 'No such organization');
      }
      return { status: 200, body: await consoleHealth(session, { hours, organizationId }, now) };
    },
  }),
];
