import { GetCallerIdentityCommand, type STSClient } from '@aws-sdk/client-sts';
import { errorName } from '#shared/preflight/aws-errors';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';

/** Who the operator's credentials are. */
export interface Caller {
  readonly account: string;
  /** As STS gives it: for a role, the assumed-role session, which leaves out the role's path. */
  readonly arn: string;
  readonly partition: string;
}

/** STS's codes for credentials it will not take: expired, revoked, mistyped, or of another partition. */
const refusedCredentials = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'UnrecognizedClientException',
]);

/**
 * Whether the credentials work (STS GetCallerIdentity, which no policy can deny), and whose they are. Credentials
 * AWS refuses are the one thing to fix; none found, or AWS out of reach, is thrown as the SDK reports it.
 */
export async function checkCredentials(
  sts: STSClient,
  signal: AbortSignal,
): Promise<{ readonly result: CheckResult; readonly caller?: Caller }> {
  const check = 'credentials';
  try {
    const { Account: account, Arn: arn } = await sts.send(new GetCallerIdentityCommand({}), {
      abortSignal: signal,
    });
    if (!account || !arn) throw new Error('STS answered GetCallerIdentity without an account or ARN');
    return {
      result: ok(check, `account ${account}, as ${arn}`),
      caller: { account, arn, partition: arn.split(':')[1] as string },
    };
  } catch (error) {
    if (!refusedCredentials.has(errorName(error))) throw error;
    return {
      result: fix(
        check,
        `AWS refused them (${errorName(error)}: ${(error as Error).message})`,
        'sign in again (aws sso login, or new access keys), then run preflight again',
      ),
    };
  }
}
