import * as v from 'valibot';
import { consoleRoles } from '#shared/domain/console-admin';
import { uuid } from '#shared/http/schemas/common';

const role = v.picklist(consoleRoles, `must be one of ${consoleRoles.join(', ')}`);

/** POST /console/api/admins/invites: the role to invite as; the operator names the organization. */
export const consoleAdminInviteBody = v.strictObject({
  role,
  organization_id: v.optional(uuid),
});

/** PATCH /console/api/admins/{id}: the admin's new role. */
export const consoleAdminRoleBody = v.strictObject({ role });
