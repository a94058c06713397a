import type { ConsoleRole } from '#shared/domain/console-admin';

/** The console's own directory and service, as the admin's authenticator shows them. */
export const consoleDirectoryName = 'Console admins';
export const consoleServiceName = 'Console sign-in';

/** How long an admin has to approve a sign-in on their authenticator. */
export const consoleApprovalSeconds = 300;

/** How long a linking code for an admin's authenticator is good for. */
export const consoleLinkSeconds = 300;

/** A creation of the console's directory and service not finished in this long is taken over by the next use. */
export const consoleApprovalsClaimSeconds = 60;

/** What the admin's authenticator shows of the approval: what is approved, and from where. */
export function approvalContext(role: ConsoleRole, address: string): string {
  return `Console sign-in as ${role} from ${address}`;
}

/**
 * How an approval stands, as the console tells the page: still pending; approved (the session moves on); or over
 * without an approval, which ends the session.
 */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'failed' | 'expired' | 'cancelled';

/** The device's answer as opened with the approval's key: only AUTHORIZED and APPROVED approve. */
export function answerState(answer: { readonly type?: unknown; readonly reason?: unknown }): ApprovalState {
  if (answer.type === 'AUTHORIZED' && answer.reason === 'APPROVED') return 'approved';
  return answer.type === 'DENIED' ? 'denied' : 'failed';
}
