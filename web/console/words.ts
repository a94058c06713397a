import { ConsoleApiError } from './api.ts';

/** What each role may do, in a person's words (docs/console.md#admins-and-roles). */
export const roleNames: Readonly<Record<string, string>> = {
  operator: 'Operator',
  owner: 'Owner',
  admin: 'Administrator',
  helpdesk: 'Help desk',
  auditor: 'Auditor (read only)',
};

const minutes = (seconds: number) => {
  const count = Math.max(1, Math.ceil(seconds / 60));
  return `${count} minute${count === 1 ? '' : 's'}`;
};

/** Why a call was refused, for the person at the console: what happened and what to do next. */
export function problem(error: unknown, during: 'enrolment' | 'sign-in' | 'other' = 'other'): string {
  if (!(error instanceof ConsoleApiError)) return ceremonyProblem(error);
  switch (error.code) {
    case 'CON-006':
      return during === 'enrolment'
        ? 'This invite cannot be used: it is unknown, already used or expired (an invite lasts 30 minutes). Ask the person who invited you for a new one.'
        : 'The console does not know this passkey, or the sign-in took too long. Try again, or ask an owner for a new invite.';
    case 'CON-002':
      return 'The service refused this request as not coming from the console itself. Reload the page and try again.';
    case 'CON-003':
      return 'Your role may not do this.';
    case 'CON-004':
      return 'There is nothing with that id in your organization.';
    case 'CON-010':
      return 'This change needs your passkey again, and it was not given. Nothing was changed.';
    case 'CON-009':
      return 'The organization would be left without an owner: make someone else an owner first.';
    case 'CON-005':
      return 'Approve this sign-in on your web authenticator before you act.';
    case 'HTTP-429':
      return `Too many attempts. Try again in ${minutes(error.retryAfterSeconds ?? 60)}.`;
    case 'NETWORK':
      return error.detail;
    default:
      return error.detail ? `The service refused: ${error.detail}` : `The service answered ${error.status}.`;
  }
}

/** Why a passkey ceremony did not finish: a cancelled prompt is the person's choice, not a failure. */
export function ceremonyProblem(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError')
    return 'The passkey prompt was cancelled or timed out. Nothing was sent.';
  if (name === 'InvalidStateError') return 'This browser already holds a passkey for this account.';
  if (name === 'SecurityError')
    return 'This browser refused passkeys at this address: it must be the service’s own domain name (or localhost on this computer), over https.';
  if (name === 'NotSupportedError')
    return 'This browser has no passkey support (no screen lock or biometric).';
  return `The passkey did not work: ${(error as Error)?.message ?? String(error)}`;
}
