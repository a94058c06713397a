import { GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { checkLambdaConcurrency } from '#shared/preflight/lambda-concurrency';
import { awsError, noAbort, preflightAccount, region } from '#test/support/preflight-account';

function concurrencyOf(limit: number, unreserved: number, loginReservedConcurrency?: number) {
  const aws = preflightAccount();
  aws.lambda
    .on(GetAccountSettingsCommand)
    .resolves({ AccountLimit: { ConcurrentExecutions: limit, UnreservedConcurrentExecutions: unreserved } });
  return checkLambdaConcurrency(
    aws.clients.lambda,
    { region, loginReservedConcurrency, loginFunctions: 4 },
    noAbort,
  );
}

const increase = (value: number) =>
  `ask for ${value} in Service Quotas (AWS Lambda, Concurrent executions, L-B99A9384): aws service-quotas ` +
  `request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value ${value} --region ${region}`;

describe('the Lambda concurrency check', () => {
  it("is ok with AWS's default quota, and with room for the login functions' reservations", async () => {
    expect(await concurrencyOf(1000, 1000)).toEqual({
      check: 'Lambda concurrency',
      status: 'ok',
      found: 'up to 1000 functions at once, 1000 unreserved',
    });
    expect((await concurrencyOf(1000, 1000, 200)).found).toBe(
      'up to 1000 functions at once, 1000 unreserved, 200 once the login functions reserve 800',
    );
  });

  it("says to ask for more for a new account's 10, which would cap the whole service", async () => {
    expect(await concurrencyOf(10, 10)).toMatchObject({
      status: 'fix',
      found:
        'the account runs at most 10 functions at once (the default is 1000; new accounts start lower), and every request is one: that caps the whole service',
      action: increase(1000),
    });
  });

  it('says the deploy would fail when the reservations leave less than 100 unreserved, and how much to ask for', async () => {
    const result = await concurrencyOf(1000, 950, 250);
    expect(result).toMatchObject({
      status: 'fix',
      found:
        "-c loginReservedConcurrency=250 reserves 1000 (250 for each of 4 login functions) of the account's 950 unreserved, and Lambda keeps 100 unreserved: the deploy would fail",
    });
    // 50 already reserved by other functions, 1 000 for the login functions, 100 kept free.
    expect(result.action).toBe(increase(1150));
    expect((await concurrencyOf(1000, 1000, 225)).status).toBe('ok');
    expect((await concurrencyOf(1000, 1000, 226)).status).toBe('fix');
  });

  it('cannot check when GetAccountSettings is denied', async () => {
    const aws = preflightAccount();
    aws.lambda.on(GetAccountSettingsCommand).rejects(awsError('AccessDeniedException'));
    expect(
      await checkLambdaConcurrency(aws.clients.lambda, { region, loginFunctions: 4 }, noAbort),
    ).toMatchObject({
      status: 'cannot-check',
      found: `lambda:GetAccountSettings on the account in ${region} was denied`,
    });
  });
});
