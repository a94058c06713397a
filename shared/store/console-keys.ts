import { createHash } from 'node:crypto';
import { itemKinds } from '#shared/store/item-kinds';
import type { ItemKey } from '#shared/store/keys';

/**
 * The console's items, all under the `console` item kind. Tokens and challenges go in by their SHA-256 only, so that
 * whoever reads the table (a backup, a console with read access) finds nothing to present.
 *
 *   CONSOLE#ADMIN#<admin>          ADMIN        an admin account: organization, role, name, passkeys
 *   CONSOLE#ADMIN#<admin>          SESSION#<h>  which sessions an admin has, so that a role change or removal ends them
 *   CONSOLE#ADMIN#<admin>          REMOVAL      a removal under way: the account is gone, what it left is going
 *   CONSOLE#ORG#<org>|OPERATOR      ADMIN#<admin>  which admins an organization (or the deployment) has
 *   CONSOLE#ORG#<org>|OPERATOR      INVITE#<h>     which invites of it are pending (h: the token's SHA-256)
 *   CONSOLE#CRED#<h>               CRED         which admin a passkey is (h: the credential id's SHA-256)
 *   CONSOLE#INVITE#<h>             INVITE       an invite while it is unused (h: the token's SHA-256)
 *   CONSOLE#SESSION#<h>            SESSION      a session (h: the cookie's token's SHA-256)
 *   CONSOLE#CHALLENGE#<h>          CHALLENGE    a passkey ceremony's challenge while it is unused
 *   CONSOLE#FAILS#ADMIN#<admin>    W#<window>   failed sign-ins of an admin in one window
 *   CONSOLE#FAILS#ADDR#<block>     W#<window>   failed sign-ins from an address block in one window
 */
const prefix = itemKinds.console.prefix;

/** The SHA-256 of a secret the client holds, hex: the only form of it the store keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export const adminAccountKey = (adminId: string): ItemKey => ({
  pk: `${prefix}ADMIN#${adminId}`,
  sk: 'ADMIN',
});
export const adminRemovalKey = (adminId: string): ItemKey => ({
  pk: adminAccountKey(adminId).pk,
  sk: 'REMOVAL',
});
export const adminListingPartition = (organizationId: string | null) =>
  `${prefix}ORG#${organizationId ?? 'OPERATOR'}`;
export const adminListingKey = (organizationId: string | null, adminId: string): ItemKey => ({
  pk: adminListingPartition(organizationId),
  sk: `ADMIN#${adminId}`,
});
export const inviteListingKey = (organizationId: string | null, digest: string): ItemKey => ({
  pk: adminListingPartition(organizationId),
  sk: `INVITE#${digest}`,
});
export const adminCredentialKey = (credentialId: string): ItemKey => ({
  pk: `${prefix}CRED#${secretDigest(credentialId)}`,
  sk: 'CRED',
});
/** An invite's key from its token's digest, as its organization's list of pending invites holds it. */
export const inviteKeyOfDigest = (digest: string): ItemKey => ({
  pk: `${prefix}INVITE#${digest}`,
  sk: 'INVITE',
});
export const inviteKey = (token: string): ItemKey => inviteKeyOfDigest(secretDigest(token));
export const sessionKey = (token: string): ItemKey => ({
  pk: `${prefix}SESSION#${secretDigest(token)}`,
  sk: 'SESSION',
});
/** A session's key from its token's digest, as an admin's list of sessions holds it. */
export const sessionKeyOfDigest = (digest: string): ItemKey => ({
  pk: `${prefix}SESSION#${digest}`,
  sk: 'SESSION',
});
export const adminSessionKey = (adminId: string, digest: string): ItemKey => ({
  pk: adminAccountKey(adminId).pk,
  sk: `SESSION#${digest}`,
});
export const challengeKey = (challenge: string): ItemKey => ({
  pk: `${prefix}CHALLENGE#${secretDigest(challenge)}`,
  sk: 'CHALLENGE',
});
export const adminFailuresKey = (adminId: string, windowStart: number): ItemKey => ({
  pk: `${prefix}FAILS#ADMIN#${adminId}`,
  sk: `W#${windowStart}`,
});
export const addressFailuresKey = (block: string, windowStart: number): ItemKey => ({
  pk: `${prefix}FAILS#ADDR#${block}`,
  sk: `W#${windowStart}`,
});

/**
 *   CONSOLE#APPROVALS              APPROVALS    the deployment's console organization, directory and service ids
 *   CONSOLE#APPROVAL#<auth>        APPROVAL     a sign-in approval's key to open its answer, while it may be read
 */
export const consoleApprovalsKey: ItemKey = { pk: `${prefix}APPROVALS`, sk: 'APPROVALS' };
export const approvalKey = (authRequestId: string): ItemKey => ({
  pk: `${prefix}APPROVAL#${authRequestId}`,
  sk: 'APPROVAL',
});
