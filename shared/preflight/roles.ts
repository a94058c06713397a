import { GetRoleCommand, type IAMClient } from '@aws-sdk/client-iam';
import { errorName } from '#shared/preflight/aws-errors';

/** A role's ARN with its path, which policies match, or undefined when the account has no role of that name. */
export async function roleArn(
  iam: IAMClient,
  name: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const { Role } = await iam.send(new GetRoleCommand({ RoleName: name }), { abortSignal: signal });
    return Role?.Arn;
  } catch (error) {
    if (errorName(error) === 'NoSuchEntityException') return undefined;
    throw error;
  }
}
