import { CliFailure, exitCodes } from '#shared/cli/common';

/** The socket errors of an endpoint that cannot be reached. */
const unreachableCodes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'];

/**
 * AWS out of reach, or no credentials found to call it with: one line and exit 3, as for a local API that does not
 * answer. Undefined for any other error.
 */
export function awsUnreachable(error: unknown): CliFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const unreachable =
    error.name === 'CredentialsProviderError' ||
    error.name === 'TimeoutError' ||
    (typeof code === 'string' && unreachableCodes.includes(code));
  return unreachable
    ? new CliFailure(`AWS cannot be reached: ${error.message}`, exitCodes.unreachable)
    : undefined;
}
