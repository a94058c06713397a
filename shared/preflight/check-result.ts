/** How a check came out: fine, something to do before the first deploy, or not knowable with these credentials. */
export type CheckStatus = 'ok' | 'fix' | 'cannot-check';

/** One line of the preflight. */
export interface CheckResult {
  /** What was checked, with its region where it is checked in several: `bootstrap us-east-1`. */
  readonly check: string;
  readonly status: CheckStatus;
  /** What was found. */
  readonly found: string;
  /** The one thing to do, when the status is not ok. */
  readonly action?: string;
}

export function ok(check: string, found: string): CheckResult {
  return { check, status: 'ok', found };
}

export function fix(check: string, found: string, action: string): CheckResult {
  return { check, status: 'fix', found, action };
}

export function cannotCheck(check: string, found: string, action: string): CheckResult {
  return { check, status: 'cannot-check', found, action };
}
