import { GetRoleCommand } from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { checkBootstrapExecutionRole, checkDeployerRole } from '#shared/preflight/deployer-role';
import {
  account,
  awsError,
  bootstrapRoleName,
  noAbort,
  preflightAccount,
  region,
  ssoSessionArn,
} from '#test/support/preflight-account';

const plan = { caller: { account, arn: ssoSessionArn, partition: 'aws' }, qualifier: 'hnb659fds', region };

describe("the deployer check, for the bootstrap's execution role", () => {
  it('is ok when the role is there, which the default deployer roles admit', async () => {
    const aws = preflightAccount();
    expect(await checkBootstrapExecutionRole(aws.clients.iam, plan, noAbort)).toEqual({
      check: `deployer role ${region}`,
      status: 'ok',
      found: `arn:aws:iam::${account}:role/${bootstrapRoleName(region)} exists, and may write the stack's secrets with its key`,
    });
  });

  it('says to bootstrap when the role is missing', async () => {
    const aws = preflightAccount();
    const other = { ...plan, qualifier: 'ops' };
    expect(await checkBootstrapExecutionRole(aws.clients.iam, other, noAbort)).toMatchObject({
      status: 'fix',
      found: `no role cdk-ops-cfn-exec-role-${account}-${region}`,
      action: `run npx cdk bootstrap aws://${account}/${region} --qualifier ops`,
    });
  });

  it('says to add it to -c deployerRoles when the roles given leave it out', async () => {
    const aws = preflightAccount();
    const narrowed = { ...plan, deployerRoles: [`arn:aws:iam::${account}:role/Pipeline`] };
    expect((await checkBootstrapExecutionRole(aws.clients.iam, narrowed, noAbort)).action).toBe(
      `add arn:aws:iam::${account}:role/${bootstrapRoleName(region)} to -c deployerRoles (and to --deployer-roles here)`,
    );
  });

  it('cannot check when GetRole is denied', async () => {
    const aws = preflightAccount();
    aws.iam.on(GetRoleCommand).rejects(awsError('AccessDenied'));
    expect(await checkBootstrapExecutionRole(aws.clients.iam, plan, noAbort)).toMatchObject({
      status: 'cannot-check',
      found: `iam:GetRole on role ${bootstrapRoleName(region)} was denied`,
    });
  });
});

describe('the deployer check, for a role the operator deploys with', () => {
  const pipeline = `arn:aws:iam::${account}:role/ci/Pipeline`;
  function withPipeline() {
    const aws = preflightAccount();
    aws.iam.on(GetRoleCommand, { RoleName: 'Pipeline' }).resolves({
      Role: { RoleName: 'Pipeline', Arn: pipeline, Path: '/ci/', RoleId: 'AROA', CreateDate: new Date() },
    });
    return aws;
  }

  it('says to pass -c deployerRoles with it, then is ok', async () => {
    const aws = withPipeline();
    expect(await checkDeployerRole(aws.clients.iam, { ...plan, roleArn: pipeline }, noAbort)).toEqual({
      check: 'deployer role',
      status: 'fix',
      found: `${pipeline} is not among the deployer roles (arn:aws:iam::${account}:role/cdk-*-cfn-exec-role-*): CloudFormation could not write the stack's secrets`,
      action: `deploy with -c deployerRoles=${pipeline} (it replaces the defaults: name any others too, comma-separated)`,
    });
    const given = { ...plan, roleArn: pipeline, deployerRoles: [pipeline] };
    expect((await checkDeployerRole(aws.clients.iam, given, noAbort)).status).toBe('ok');
  });

  it('says so of a role that does not exist, or is not a role', async () => {
    const aws = withPipeline();
    const missing = `arn:aws:iam::${account}:role/Gone`;
    expect(await checkDeployerRole(aws.clients.iam, { ...plan, roleArn: missing }, noAbort)).toMatchObject({
      status: 'fix',
      found: `no role Gone in account ${account}`,
    });
    const user = `arn:aws:iam::${account}:user/alice`;
    expect((await checkDeployerRole(aws.clients.iam, { ...plan, roleArn: user }, noAbort)).found).toBe(
      `${user} is not a role's ARN`,
    );
  });

  it('cannot check a role of another account, or when GetRole is denied', async () => {
    const aws = withPipeline();
    const elsewhere = 'arn:aws:iam::210987654321:role/Pipeline';
    expect((await checkDeployerRole(aws.clients.iam, { ...plan, roleArn: elsewhere }, noAbort)).status).toBe(
      'cannot-check',
    );
    aws.iam.on(GetRoleCommand).rejects(awsError('AccessDenied'));
    expect(await checkDeployerRole(aws.clients.iam, { ...plan, roleArn: pipeline }, noAbort)).toMatchObject({
      status: 'cannot-check',
      found: 'iam:GetRole on role Pipeline was denied',
    });
  });
});
