import * as v from 'valibot';
import { ApiError } from '#shared/errors';
import { clearedSessionCookie, type ConsoleEndpoint, endpoint } from '#shared/http/console-handler';
import { publicBaseUrl } from '#shared/http/event';
import { uuid } from '#shared/http/schemas/common';
import { consoleAdminInviteBody, consoleAdminRoleBody } from '#shared/http/schemas/console-admins';
import {
  changeAdminRoleFor,
  consoleAdmins,
  inviteAdmin,
  removeAdmin,
  resetAdminAuthenticator,
} from '#shared/use-cases/console-admins';
import { actingSession } from '#functions/console/required-session';

/** What a change of an admin touched, for its audit record: the admin's organization (none for an operator). */
const touchedOrganization = (organizationId: string | null) =>
  organizationId === null ? {} : { touched: { organizationId } };

/**
 * Admin management (docs/console.md#admin-management): the owners' (and the operator's) list of admins and pending
 * invites, invites, role changes, removals and resets of an admin's authenticator. A change ends the changed admin's
 * sessions.
 */
export const adminEndpoints: readonly ConsoleEndpoint[] = [
  endpoint({
    method: 'GET',
    path: '/admins',
    needs: 'admin-management',
    schema: undefined,
    handle: async ({ event, session, now }) => {
      const named = event.queryStringParameters?.organization_id;
      if (named !== undefined && !v.is(uuid, named)) throw new ApiError('CON-004', 'No such organization');
      return { status: 200, body: await consoleAdmins(actingSession(session), named?.toLowerCase(), now) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admins/invites',
    needs: 'admin-management',
    schema: consoleAdminInviteBody,
    handle: async ({ event, session, body, now }) => {
      const invite = await inviteAdmin(
        actingSession(session),
        { role: body.role, organizationId: body.organization_id },
        publicBaseUrl(event),
        now,
      );
      return {
        status: 201,
        body: { url: invite.url, expires_at: invite.expiresAt, role: body.role },
        ...touchedOrganization(invite.organizationId),
      };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/admins/{id}',
    confirmed: true,
    needs: 'admin-management',
    schema: consoleAdminRoleBody,
    handle: async ({ session, parameters, body }) => {
      const acting = actingSession(session);
      const { account, changed } = await changeAdminRoleFor(acting, parameters.id ?? '', body.role);
      const self = changed && account.adminId === acting.adminId;
      return {
        status: 200,
        body: { id: account.adminId, role: body.role, sessions_ended: changed },
        targetId: account.adminId,
        ...(self ? { cookies: [clearedSessionCookie] } : {}),
        ...touchedOrganization(account.organizationId),
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/admins/{id}',
    confirmed: true,
    needs: 'admin-management',
    schema: undefined,
    handle: async ({ session, parameters, now }) => {
      const acting = actingSession(session);
      const { account } = await removeAdmin(acting, parameters.id ?? '', now);
      return {
        status: 204,
        targetId: account.adminId,
        ...(account.adminId === acting.adminId ? { cookies: [clearedSessionCookie] } : {}),
        ...touchedOrganization(account.organizationId),
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/admins/{id}/authenticator/reset',
    confirmed: true,
    needs: 'admin-management',
    schema: undefined,
    handle: async ({ session, parameters, now }) => {
      const { account, unlinked, ended } = await resetAdminAuthenticator(
        actingSession(session),
        parameters.id ?? '',
        now,
      );
      return {
        status: 200,
        body: { id: account.adminId, authenticators_unlinked: unlinked, sessions_ended: ended },
        targetId: account.adminId,
        ...touchedOrganization(account.organizationId),
      };
    },
  }),
];
