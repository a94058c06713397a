import type { ConsoleRole } from '#shared/domain/console-admin';

/**
 * What the console lets an admin do, by kind (docs/console.md#roles). Every endpoint of the console names one kind;
 * the pipeline refuses a role the table does not allow before the endpoint runs.
 */
export type ConsoleAction =
  /** See the organization's directories, services, keys, users, audit trail and health. */
  | 'read'
  /** Create and change directories: active, webhook URL, denial context, push credentials, SDK keys. */
  | 'directory-write'
  /** Create and change services: name, icon, description, callback URL, active, policy. */
  | 'service-write'
  /** Add, generate, activate, deactivate, expire and remove public keys at any level. */
  | 'key-write'
  /**
   * Add, activate, deactivate, expire and remove the organization's own keys, which sign for every directory and
   * service of it: the owner's and the operator's, as admin management is.
   */
  | 'organization-key-write'
  /** Act for a user: unlink a device, start a link, approve a pending link, clear a fraud lock, reset TOTP. */
  | 'user-helpdesk'
  /** Invite admins, change their roles, remove them, reset their authenticators. */
  | 'admin-management'
  /** What belongs to the deployment: organizations, the API's keys, rate limits, fraud locks, dead letters. */
  | 'deployment';

export const consoleActions: readonly ConsoleAction[] = [
  'read',
  'directory-write',
  'service-write',
  'key-write',
  'organization-key-write',
  'user-helpdesk',
  'admin-management',
  'deployment',
];

const permissions: Readonly<Record<ConsoleRole, ReadonlySet<ConsoleAction>>> = {
  operator: new Set(consoleActions),
  owner: new Set([
    'read',
    'directory-write',
    'service-write',
    'key-write',
    'organization-key-write',
    'user-helpdesk',
    'admin-management',
  ]),
  admin: new Set(['read', 'directory-write', 'service-write', 'key-write', 'user-helpdesk']),
  helpdesk: new Set(['read', 'user-helpdesk']),
  auditor: new Set(['read']),
};

/** Whether a role may perform a kind of action at all; where it may, `sameOrganization` still decides on which ids. */
export function mayPerform(role: ConsoleRole, action: ConsoleAction): boolean {
  return permissions[role].has(action);
}

/**
 * Whether a role only reads: such an admin may act once their passkey is verified, where every other role must also
 * approve the sign-in on their own authenticator (docs/console.md#sign-in).
 */
export function onlyReads(role: ConsoleRole): boolean {
  return consoleActions.every((action) => action === 'read' || !mayPerform(role, action));
}

/**
 * Whether an admin may touch what belongs to `organizationId`: the operator may touch every organization's; any other
 * admin only their own. The console answers a refusal here exactly as it answers an id that does not exist.
 */
export function sameOrganization(
  admin: { readonly organizationId: string | null; readonly role: ConsoleRole },
  organizationId: string,
): boolean {
  if (admin.role === 'operator') return true;
  return admin.organizationId !== null && admin.organizationId === organizationId;
}
