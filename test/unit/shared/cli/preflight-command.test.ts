import { GetRoleCommand } from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import type { PreflightValues } from '#shared/cli/preflight-options';
import {
  account,
  awsError,
  bootstrapRoleName,
  preflightAccount,
  preflight,
  preflightUsage as usage,
  region,
  ssoRoleName,
  ssoSessionArn,
  withoutBootstrap,
} from '#test/support/preflight-account';

describe('npm run admin -- preflight', () => {
  it('prints one line per check, and exits 0 when nothing needs a fix', async () => {
    const run = await preflight({ region });
    expect(run).toEqual({
      exitCode: 0,
      stderr: '',
      destroyed: 1,
      stdout: [
        `ok            credentials: account ${account}, as ${ssoSessionArn}`,
        `ok            bootstrap ${region}: bootstrap version 21 (CDK's default synthesizer needs 6 or later)`,
        "ok            bootstrap us-east-1: bootstrap version 21 (CDK's default synthesizer needs 6 or later)",
        `ok            deployer role ${region}: arn:aws:iam::${account}:role/${bootstrapRoleName(region)} exists, and may write the stack's secrets with its key`,
        `ok            deployer role us-east-1: arn:aws:iam::${account}:role/${bootstrapRoleName('us-east-1')} exists, and may write the stack's secrets with its key`,
        'ok            Lambda concurrency: up to 1000 functions at once, 1000 unreserved',
        `ok            key administrator: arn:aws:iam::${account}:role/aws-reserved/sso.amazonaws.com/${region}/${ssoRoleName} may read and rotate the API's keys`,
      ].join('\n'),
    });
  });

  it('marks what to fix and what it cannot check, says what to do, and exits 1', async () => {
    const aws = preflightAccount();
    withoutBootstrap(aws, 'us-east-1');
    aws.iam.on(GetRoleCommand, { RoleName: ssoRoleName }).rejects(awsError('AccessDenied'));
    const run = await preflight({ region, 'login-reserved-concurrency': '300' }, aws);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('3 of 7 checks need a fix before the first deploy.');
    const lines = run.stdout.split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[2]).toBe(
      'fix           bootstrap us-east-1: not bootstrapped for CDK (no SSM parameter /cdk-bootstrap/hnb659fds/version) → ' +
        `run npx cdk bootstrap aws://${account}/us-east-1`,
    );
    expect(lines[4]).toBe(
      `fix           deployer role us-east-1: no role ${bootstrapRoleName('us-east-1')} → run npx cdk bootstrap aws://${account}/us-east-1`,
    );
    expect(lines[5]).toMatch(
      /^fix {11}Lambda concurrency: -c loginReservedConcurrency=300 reserves 1200 .* → ask for 1300 in Service Quotas/,
    );
    expect(lines[6]).toBe(
      `cannot check  key administrator: iam:GetRole on role ${ssoRoleName} was denied: the role's path, which STS leaves out and the key's policy matches, is unknown → ` +
        'allow iam:GetRole on it to these credentials, or run preflight as someone who may',
    );
    expect(lines.filter((line) => line.startsWith('ok '))).toHaveLength(3);
  });

  it('prints the results as JSON with --json, and still exits 1 on a fix', async () => {
    const aws = preflightAccount();
    withoutBootstrap(aws, region);
    const run = await preflight({ region, edge: 'none', json: true }, aws);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({ check: 'credentials', status: 'ok' }),
      {
        check: `bootstrap ${region}`,
        status: 'fix',
        found: 'not bootstrapped for CDK (no SSM parameter /cdk-bootstrap/hnb659fds/version)',
        action: `run npx cdk bootstrap aws://${account}/${region}`,
      },
      expect.objectContaining({ check: `deployer role ${region}`, status: 'fix' }),
      expect.objectContaining({ check: 'Lambda concurrency', status: 'ok' }),
      expect.objectContaining({ check: 'key administrator', status: 'ok' }),
    ]);
    expect(run.exitCode).toBe(1);
  });

  it('says in one line, with exit 3, that there are no credentials or AWS does not answer', async () => {
    const aws = preflightAccount();
    aws.sts
      .on(GetCallerIdentityCommand)
      .rejects(awsError('CredentialsProviderError', 'Could not load credentials from any providers'));
    expect(await preflight({ region }, aws)).toEqual({
      exitCode: 3,
      stderr: 'AWS cannot be reached: Could not load credentials from any providers',
      stdout: '',
      destroyed: 1,
    });
  });

  it('answers options the deploy would refuse with the usage, exit 2, before calling AWS', async () => {
    const aws = preflightAccount();
    const refused = async (values: PreflightValues) => {
      const run = await preflight(values, aws);
      expect(run.exitCode).toBe(2);
      expect(run.stderr.split('\n').slice(1)).toEqual(['', usage]);
      return run.stderr.split('\n')[0];
    };
    expect(await refused({})).toBe('preflight needs --region: the region you will deploy to.');
    expect(await refused({ region, edge: 'cloudfront' })).toBe('--edge must be waf or none, not cloudfront.');
    expect(await refused({ region, 'login-reserved-concurrency': '0' })).toBe(
      '--login-reserved-concurrency must be a whole number above 0, not 0.',
    );
    expect(await refused({ region, 'domain-name': 'mfa.example.com' })).toBe(
      '--domain-name and --certificate-arn go together, as -c domainName and -c certificateArn do.',
    );
    expect(await refused({ region, qualifier: 'far-too-long-a-qualifier' })).toMatch(/^--qualifier must be/);
    expect(aws.sts.calls()).toHaveLength(0);
  });
});
