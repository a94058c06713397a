/**
 * A person who works in the console (docs/console.md): an organization's admin, or the deployment's operator, who
 * belongs to no organization. They sign in with a passkey; the service never holds a password for them.
 */
export type ConsoleRole = 'operator' | 'owner' | 'admin' | 'helpdesk' | 'auditor';

export const consoleRoles: readonly ConsoleRole[] = ['operator', 'owner', 'admin', 'helpdesk', 'auditor'];

/** The roles an organization's admin may hold: every role but the operator's. */
export const organizationRoles: readonly ConsoleRole[] = ['owner', 'admin', 'helpdesk', 'auditor'];

/** A passkey an admin registered: the WebAuthn credential and the signature counter of its last accepted assertion. */
export interface AdminPasskey {
  /** base64url. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  /** ISO 8601 UTC. */
  readonly createdAt: string;
}

export interface AdminAccount {
  readonly adminId: string;
  /** The organization the admin works for; null for the deployment's operator. */
  readonly organizationId: string | null;
  readonly role: ConsoleRole;
  readonly name: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  readonly passkeys: readonly AdminPasskey[];
  /** ISO 8601 UTC: the last sign-in's passkey verified; absent until the first (and for accounts from before). */
  readonly lastSignInAt?: string;
}

/** The longest admin name: what a person calls themselves, shown in lists and in the audit trail. */
export const maxAdminNameLength = 100;

/**
 * How the console names an admin as an actor in the audit trail: `console:<adminId>`, beside the signing entities'
 * and the admin CLI's (`admin-cli:<account>`).
 */
export function consoleActor(adminId: string): string {
  return `console:${adminId}`;
}

/** Whether a role and an organization fit together: the operator has none, every other role has one. */
export function roleFitsOrganization(role: ConsoleRole, organizationId: string | null): boolean {
  return role === 'operator' ? organizationId === null : organizationId !== null;
}
