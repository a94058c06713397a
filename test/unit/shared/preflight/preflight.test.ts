import { GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { documentedBootstrapVersion } from '#shared/preflight/bootstrap-version';
import { type PreflightSettings, runPreflight } from '#shared/preflight/preflight';
import { account, awsError, preflightAccount, region } from '#test/support/preflight-account';

const settings: PreflightSettings = {
  region,
  edge: true,
  qualifier: 'hnb659fds',
  requiredBootstrapVersion: documentedBootstrapVersion,
  existing: {},
  timeoutMs: 1000,
};

const checksOf = (results: { check: string; status: string }[]) =>
  results.map((result) => `${result.status} ${result.check}`);

describe('the preflight', () => {
  it("checks both regions of a stack with the edge outside us-east-1, the stack's alone otherwise", async () => {
    expect(checksOf(await runPreflight(preflightAccount().clients, settings))).toEqual([
      'ok credentials',
      `ok bootstrap ${region}`,
      'ok bootstrap us-east-1',
      `ok deployer role ${region}`,
      'ok deployer role us-east-1',
      'ok Lambda concurrency',
      'ok key administrator',
    ]);
    for (const alone of [
      { ...settings, edge: false },
      { ...settings, region: 'us-east-1' },
    ]) {
      const aws = preflightAccount();
      const checks = checksOf(await runPreflight(aws.clients, alone));
      expect(checks.filter((check) => check.includes('bootstrap'))).toEqual([`ok bootstrap ${alone.region}`]);
      expect(checks.filter((check) => check.includes('deployer'))).toEqual([
        `ok deployer role ${alone.region}`,
      ]);
    }
  });

  it('checks the role given instead of the bootstrap roles, and each resource and certificate named', async () => {
    const checks = checksOf(
      await runPreflight(preflightAccount().clients, {
        ...settings,
        deployerRole: `arn:aws:iam::${account}:role/Pipeline`,
        existing: {
          tableName: 'Table',
          auditTableName: 'AuditTable',
          apiKeySecretArn: `arn:aws:secretsmanager:${region}:${account}:secret:ApiKeyRing-AbCdEf`,
          hashKeySecretArn: `arn:aws:secretsmanager:${region}:${account}:secret:HashKey-AbCdEf`,
          vapidKeysSecretArn: `arn:aws:secretsmanager:${region}:${account}:secret:VapidKeys-AbCdEf`,
          keyArn: `arn:aws:kms:${region}:${account}:key/1234abcd-12ab-34cd-56ef-1234567890ab`,
        },
        certificate: { arn: `arn:aws:acm:us-east-1:${account}:certificate/1`, domainName: 'mfa.example.com' },
      }),
    );
    expect(checks.filter((check) => !check.includes('bootstrap'))).toEqual([
      'ok credentials',
      'fix deployer role',
      'ok Lambda concurrency',
      'ok key administrator',
      'ok existing table',
      'ok existing audit table',
      'ok existing API key secret',
      'ok existing hash key secret',
      'ok existing VAPID keys secret',
      'ok existing KMS key',
      'ok certificate',
    ]);
  });

  it('wants the certificate in the stack region without the edge', async () => {
    const results = await runPreflight(preflightAccount().clients, {
      ...settings,
      edge: false,
      certificate: { arn: `arn:aws:acm:us-east-1:${account}:certificate/1`, domainName: 'mfa.example.com' },
    });
    expect(results.find((result) => result.check === 'certificate')).toMatchObject({
      status: 'fix',
      action: `aws acm request-certificate --domain-name mfa.example.com --validation-method DNS --region ${region}`,
    });
  });

  it('runs the checks at once, each with its own time limit, and says which did not answer', async () => {
    const aws = preflightAccount();
    const silent = () => new Promise<never>(() => undefined);
    aws.ssm.get(region)?.on(GetParameterCommand).callsFake(silent);
    aws.ssm.get('us-east-1')?.on(GetParameterCommand).callsFake(silent);
    aws.lambda.on(GetAccountSettingsCommand).callsFake(silent);
    const started = Date.now();
    const results = await runPreflight(aws.clients, { ...settings, timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(800);
    expect(results.filter((result) => result.status === 'cannot-check')).toEqual(
      [`bootstrap ${region}`, 'bootstrap us-east-1', 'Lambda concurrency'].map((check) => ({
        check,
        status: 'cannot-check',
        found: 'AWS did not answer within 0.3 s',
        action: 'run preflight again',
      })),
    );
    expect(results.filter((result) => result.status === 'ok')).toHaveLength(4);
  });

  it("reports a check's unexpected failure in its own line", async () => {
    const aws = preflightAccount();
    aws.lambda.on(GetAccountSettingsCommand).rejects(awsError('ServiceException', 'Internal failure'));
    expect((await runPreflight(aws.clients, settings)).find((r) => r.check === 'Lambda concurrency')).toEqual(
      {
        check: 'Lambda concurrency',
        status: 'cannot-check',
        found: 'ServiceException: Internal failure',
        action: 'run preflight again; if it says the same, check this by hand',
      },
    );
  });

  it('stops at credentials AWS refuses, with the one thing to do', async () => {
    const aws = preflightAccount();
    aws.sts
      .on(GetCallerIdentityCommand)
      .rejects(awsError('ExpiredToken', 'The security token included in the request is expired'));
    expect(await runPreflight(aws.clients, settings)).toEqual([
      {
        check: 'credentials',
        status: 'fix',
        found: 'AWS refused them (ExpiredToken: The security token included in the request is expired)',
        action: 'sign in again (aws sso login, or new access keys), then run preflight again',
      },
    ]);
    expect(aws.ssm.get(region)?.calls()).toHaveLength(0);
  });

  it('throws when there are no credentials, or STS does not answer in time', async () => {
    const none = preflightAccount();
    none.sts.on(GetCallerIdentityCommand).rejects(awsError('CredentialsProviderError'));
    await expect(runPreflight(none.clients, settings)).rejects.toMatchObject({
      name: 'CredentialsProviderError',
    });
    const silent = preflightAccount();
    silent.sts.on(GetCallerIdentityCommand).callsFake(() => new Promise<never>(() => undefined));
    await expect(runPreflight(silent.clients, { ...settings, timeoutMs: 50 })).rejects.toMatchObject({
      name: 'TimeoutError',
      message: 'STS: no answer within 0.05 s',
    });
  });
});
