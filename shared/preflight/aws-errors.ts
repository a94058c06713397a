import { type CheckResult, cannotCheck } from '#shared/preflight/check-result';

/** The SDK names an error after AWS's code for it: `ResourceNotFoundException`, `AccessDenied`. */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** Denied by IAM: `AccessDenied` from the query services (IAM, STS), `AccessDeniedException` from the others. */
export function isAccessDenied(error: unknown): boolean {
  return errorName(error).startsWith('AccessDenied');
}

/**
 * A call these credentials may not make: the check says which permission it needs. Any other error is not the
 * check's to judge, and goes on to the preflight, which reports it.
 */
export function unlessDenied(
  check: string,
  permission: string,
  resource: string,
  error: unknown,
  /** What the denial leaves unknown, when the check's name does not say it. */
  unknown?: string,
): CheckResult {
  if (!isAccessDenied(error)) throw error;
  return cannotCheck(
    check,
    `${permission} on ${resource} was denied${unknown ? `: ${unknown}` : ''}`,
    `allow ${permission} on it to these credentials, or run preflight as someone who may`,
  );
}
