import { GetAccountSettingsCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { unlessDenied } from '#shared/preflight/aws-errors';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';

/** Lambda keeps this much of an account's concurrency unreserved: a reservation that would take it fails. */
export const minimumUnreservedConcurrency = 100;
/** AWS's default quota of concurrent executions; a new account can start far below it, at 10. */
export const defaultConcurrencyQuota = 1000;
/** The Service Quotas code of Lambda's concurrent executions. */
export const concurrencyQuotaCode = 'L-B99A9384';

export interface ConcurrencyPlan {
  readonly region: string;
  /** `-c loginReservedConcurrency`: reserved for each login function. */
  readonly loginReservedConcurrency?: number;
  /** How many functions a login waits on, each given that reservation. */
  readonly loginFunctions: number;
}

/**
 * Whether the account's Lambda concurrency carries the service (each request is one invocation, so the quota is the
 * service's ceiling) and leaves room for the login functions' reservations, without which the deploy fails.
 */
export async function checkLambdaConcurrency(
  lambda: LambdaClient,
  plan: ConcurrencyPlan,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = 'Lambda concurrency';
  let limit: number;
  let unreserved: number;
  try {
    const { AccountLimit } = await lambda.send(new GetAccountSettingsCommand({}), { abortSignal: signal });
    limit = AccountLimit?.ConcurrentExecutions ?? 0;
    unreserved = AccountLimit?.UnreservedConcurrentExecutions ?? limit;
  } catch (error) {
    return unlessDenied(check, 'lambda:GetAccountSettings', `the account in ${plan.region}`, error);
  }
  const each = plan.loginReservedConcurrency ?? 0;
  const reserving = each * plan.loginFunctions;
  const needed = Math.max(
    defaultConcurrencyQuota,
    limit - unreserved + reserving + minimumUnreservedConcurrency,
  );
  const ask =
    `ask for ${needed} in Service Quotas (AWS Lambda, Concurrent executions, ${concurrencyQuotaCode}): ` +
    `aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${concurrencyQuotaCode} ` +
    `--desired-value ${needed} --region ${plan.region}`;
  if (reserving && unreserved - reserving < minimumUnreservedConcurrency) {
    return fix(
      check,
      `-c loginReservedConcurrency=${each} reserves ${reserving} (${each} for each of ${plan.loginFunctions} login ` +
        `functions) of the account's ${unreserved} unreserved, and Lambda keeps ${minimumUnreservedConcurrency} ` +
        'unreserved: the deploy would fail',
      ask,
    );
  }
  if (limit < defaultConcurrencyQuota) {
    return fix(
      check,
      `the account runs at most ${limit} functions at once (the default is ${defaultConcurrencyQuota}; new accounts ` +
        'start lower), and every request is one: that caps the whole service',
      ask,
    );
  }
  const left = reserving ? `, ${unreserved - reserving} once the login functions reserve ${reserving}` : '';
  return ok(check, `up to ${limit} functions at once, ${unreserved} unreserved${left}`);
}
