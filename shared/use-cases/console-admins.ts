import * as v from 'valibot';
import {
  type AdminAccount,
  type ConsoleRole,
  consoleActor,
  roleFitsOrganization,
} from '#shared/domain/console-admin';
import { sameOrganization } from '#shared/domain/console-permissions';
import type { ConsoleSession } from '#shared/domain/console-session';
import { linkedDevices } from '#shared/domain/user';
import { clip, idEchoLength } from '#shared/echo';
import { ApiError, invalidArgument } from '#shared/errors';
import { uuid } from '#shared/http/schemas/common';
import {
  type AdminChange,
  type AdminRemoval,
  changeAdminRole,
  finishAdminRemoval,
  getAdminAccount,
  getAdminRemoval,
  listAdminAccounts,
  removalOf,
  removeAdminAccount,
} from '#shared/store/console-admins';
import { getConsoleApprovals } from '#shared/store/console-approvals';
import { deleteInvites, listPendingInvites } from '#shared/store/console-ceremonies';
import { endAdminSessions } from '#shared/store/console-sessions';
import { getOrganization } from '#shared/store/organizations';
import { getUser } from '#shared/store/users';
import { epochSeconds } from '#shared/time';
import { unlinkAdminAuthenticators } from '#shared/use-cases/console-approvals';
import { type ConsoleInvite, createConsoleInvite } from '#shared/use-cases/console-invites';

/** Attempts of a change that a concurrent change of the same admin (or of the owner it relies on) keeps spoiling. */
const changeAttempts = 3;

const noOrganization = () => new ApiError('CON-004', 'No such organization');
const noAdmin = (adminId: string) => new ApiError('CON-004', `No admin ${clip(adminId, idEchoLength)}`);
const lastOwner = () =>
  new ApiError(
    'CON-009',
    'This is the organization’s last owner: invite another owner before changing this one’s role or removing them',
  );

/**
 * Whose admins a request is about: an organization's admin, their own organization's (another one named is CON-004,
 * as one that does not exist); the operator, the organization named, or the deployment's operators when none is.
 */
async function adminsOf(session: ConsoleSession, named: string | undefined): Promise<string | null> {
  if (session.role !== 'operator') {
    if (named !== undefined && named !== session.organizationId) throw noOrganization();
    return session.organizationId;
  }
  if (named === undefined) return null;
  if (!(await getOrganization(named))) throw noOrganization();
  return named;
}

/** Which of these admins have a web authenticator linked to approve their sign-ins, in the console directory. */
async function authenticatorsLinked(adminIds: readonly string[]): Promise<ReadonlySet<string>> {
  const setup = await getConsoleApprovals();
  if (!setup?.ready) return new Set();
  const linked = await Promise.all(
    adminIds.map(async (adminId) => {
      const user = await getUser({ directoryId: setup.directoryId, identifier: adminId });
      return user && linkedDevices(user).length > 0 ? adminId : undefined;
    }),
  );
  return new Set(linked.filter((adminId) => adminId !== undefined));
}

/**
 * GET /console/api/admins: an organization's admins (name, role, enrolled and last signed in, whether an authenticator
 * is linked) and its pending invites (role, expiry, who invited). No token of an invite is ever shown again.
 */
export async function consoleAdmins(session: ConsoleSession, named: string | undefined, now: Date) {
  const organizationId = await adminsOf(session, named);
  const [accounts, invites] = await Promise.all([
    listAdminAccounts(organizationId),
    listPendingInvites(organizationId, epochSeconds(now)),
  ]);
  const linked = await authenticatorsLinked(accounts.map((account) => account.adminId));
  return {
    organization_id: organizationId,
    admins: accounts
      .sort((a, b) => a.name.localeCompare(b.name) || a.adminId.localeCompare(b.adminId))
      .map((account) => ({
        id: account.adminId,
        name: account.name,
        role: account.role,
        enrolled_at: account.createdAt,
        last_sign_in_at: account.lastSignInAt ?? null,
        authenticator_linked: linked.has(account.adminId),
      })),
    invites: invites
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .map((invite) => ({
        id: invite.id,
        role: invite.role,
        expires_at: new Date(invite.expiresAt * 1000).toISOString(),
        invited_by: invite.invitedBy,
      })),
  };
}

/**
 * POST /console/api/admins/invites: an owner invites an owner, admin, helpdesk or auditor of their own organization;
 * only the operator invites an operator (or anyone, into the organization they name). Through the same use case as
 * the admin CLI's invite, the URL shown once.
 */
export async function inviteAdmin(
  session: ConsoleSession,
  input: { readonly role: ConsoleRole; readonly organizationId?: string | undefined },
  baseUrl: string,
  now: Date,
): Promise<ConsoleInvite & { readonly organizationId: string | null }> {
  if (input.role === 'operator' && session.role !== 'operator')
    throw new ApiError('CON-003', 'Only the operator invites an operator');
  if (input.role === 'operator' && input.organizationId !== undefined)
    throw invalidArgument('organization_id: the operator belongs to no organization');
  const organizationId = input.role === 'operator' ? null : await adminsOf(session, input.organizationId);
  if (organizationId === null && input.role !== 'operator')
    throw invalidArgument('organization_id: name the organization the admin will belong to');
  const invite = await createConsoleInvite(
    { organizationId, role: input.role, invitedBy: consoleActor(session.adminId), baseUrl },
    now,
  );
  return { ...invite, organizationId };
}

/** The admin an id names, if the session may manage them: another organization's is CON-004, as an unknown one. */
async function manageableAdmin(session: ConsoleSession, adminId: string): Promise<AdminAccount> {
  const account = v.is(uuid, adminId) ? await getAdminAccount(adminId) : undefined;
  if (!account || !manages(session, account.organizationId)) throw noAdmin(adminId);
  return account;
}

/** Whether the session manages the admins of an organization (null: the deployment's operators). */
const manages = (session: ConsoleSession, organizationId: string | null) =>
  organizationId === null ? session.role === 'operator' : sameOrganization(session, organizationId);

/**
 * The organization's other owner that a change of `account` relies on, when `account` is an owner about to be one no
 * more; none is CON-009. The change's transaction then holds only while that one is still an owner.
 */
async function keptOwner(account: AdminAccount): Promise<AdminAccount | undefined> {
  if (account.role !== 'owner') return undefined;
  const other = (await listAdminAccounts(account.organizationId)).find(
    (each) => each.role === 'owner' && each.adminId !== account.adminId,
  );
  if (!other) throw lastOwner();
  return other;
}

/** Applies a change to an admin as read now, again when the admin (or the owner it relied on) changed meanwhile. */
async function changeAdmin(
  session: ConsoleSession,
  adminId: string,
  change: (account: AdminAccount) => Promise<AdminChange | 'unchanged'>,
): Promise<{ account: AdminAccount; changed: boolean }> {
  for (let attempt = 1; attempt <= changeAttempts; attempt++) {
    const account = await manageableAdmin(session, adminId);
    const outcome = await change(account);
    if (outcome === 'unchanged') return { account, changed: false };
    if (outcome === 'changed') return { account, changed: true };
  }
  throw new ApiError(
    'CON-009',
    'The organization’s owners are changing at this moment; reload and try again',
  );
}

/**
 * PATCH /console/api/admins/{id}: gives an admin another role of their organization (operator stays operator). The
 * organization's last owner keeps the role (CON-009). The admin's sessions end.
 */
export async function changeAdminRoleFor(session: ConsoleSession, adminId: string, role: ConsoleRole) {
  const changed = await changeAdmin(session, adminId, async (account) => {
    if (!roleFitsOrganization(role, account.organizationId)) {
      throw invalidArgument(
        role === 'operator'
          ? 'role: the operator belongs to no organization'
          : 'role: an operator stays operator',
      );
    }
    if (role === account.role) return 'unchanged';
    const keep = role === 'owner' ? undefined : await keptOwner(account);
    return changeAdminRole(account, role, keep);
  });
  // They sign in again, as what they now are. (A removal ends them in its own steps, after the unlink.)
  if (changed.changed) await endAdminSessions(changed.account.adminId);
  return changed;
}

/**
 * Takes from an admin all that lets them act besides their account (a reset, and each removal): the approval pending on
 * their authenticator is cancelled, every device of theirs in the console directory unlinked, then their sessions end
 * (after the unlink: a session the old authenticator approved meanwhile ends too). Each step may run again.
 */
async function disarmAdmin(adminId: string, now: Date) {
  const unlinked = await unlinkAdminAuthenticators(adminId, now);
  const ended = await endAdminSessions(adminId);
  return { unlinked, ended };
}

/**
 * What a removal leaves once the account is gone, taken away: the admin disarmed, the invites they made and nobody
 * used revoked (a removed owner keeps no way back in), the passkeys' index, then the record of the removal.
 */
async function finishRemoval(removal: AdminRemoval, now: Date): Promise<void> {
  await disarmAdmin(removal.adminId, now);
  const invited = await listPendingInvites(removal.organizationId, epochSeconds(now));
  await deleteInvites(invited.filter((invite) => invite.invitedBy === consoleActor(removal.adminId)));
  await finishAdminRemoval(removal);
}

/**
 * DELETE /console/api/admins/{id}: removes an admin. The account and its listing go first, in one transaction that
 * keeps the organization's last owner (CON-009), so that from then on their passkeys sign nobody in; then what it
 * left: their pending approval, their devices in the console directory, their sessions, the invites they made, their
 * passkeys' index. A removal stopped halfway is finished by the next one, which answers as the first; once finished,
 * the admin is CON-004, as one that never was.
 */
export async function removeAdmin(session: ConsoleSession, adminId: string, now: Date) {
  const unfinished = v.is(uuid, adminId) ? await getAdminRemoval(adminId) : undefined;
  if (unfinished && manages(session, unfinished.organizationId)) {
    await finishRemoval(unfinished, now);
    return { account: unfinished };
  }
  const removed = await changeAdmin(session, adminId, async (account) =>
    removeAdminAccount(account, await keptOwner(account)),
  );
  await finishRemoval(removalOf(removed.account), now);
  return removed;
}

/**
 * POST /console/api/admins/{id}/authenticator/reset: recovery of an admin who lost the authenticator that approves
 * their sign-ins. Their devices in the console directory are unlinked and their sessions end; their next sign-in
 * links a new one by trust on first use, as after enrolment. Never one's own: a stolen passkey alone must not be
 * able to replace the admin's phone.
 */
export async function resetAdminAuthenticator(session: ConsoleSession, adminId: string, now: Date) {
  const account = await manageableAdmin(session, adminId);
  if (account.adminId === session.adminId) {
    throw new ApiError(
      'CON-003',
      'No admin resets their own authenticator: another owner, or the operator, does it for you',
    );
  }
  return { account, ...(await disarmAdmin(account.adminId, now)) };
}
