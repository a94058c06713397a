import { GetRoleCommand } from '@aws-sdk/client-iam';
import { describe, expect, it } from 'vitest';
import { checkKeyAdministrator } from '#shared/preflight/key-administrator';
import {
  account,
  awsError,
  noAbort,
  preflightAccount,
  ssoRoleArn,
  ssoRoleName,
  ssoSessionArn,
} from '#test/support/preflight-account';

const caller = (arn: string) => ({ account, arn, partition: 'aws' });

describe('the key administrator check', () => {
  it("finds an IAM Identity Center session's role, with the path STS leaves out, among the default administrators", async () => {
    const aws = preflightAccount();
    expect(await checkKeyAdministrator(aws.clients.iam, { caller: caller(ssoSessionArn) }, noAbort)).toEqual({
      check: 'key administrator',
      status: 'ok',
      found: `${ssoRoleArn} may read and rotate the API's keys`,
    });
    expect(aws.iam.commandCalls(GetRoleCommand)[0]?.args[0].input).toEqual({ RoleName: ssoRoleName });
  });

  it('admits an IAM user by default, without asking IAM', async () => {
    const aws = preflightAccount();
    const user = `arn:aws:iam::${account}:user/ops/alice`;
    expect((await checkKeyAdministrator(aws.clients.iam, { caller: caller(user) }, noAbort)).status).toBe(
      'ok',
    );
    expect(aws.iam.commandCalls(GetRoleCommand)).toHaveLength(0);
  });

  it('says to name an ordinary assumed role with -c keyAdministrators, or api-key rotate is denied', async () => {
    const aws = preflightAccount();
    const role = `arn:aws:iam::${account}:role/platform/Deployer`;
    aws.iam.on(GetRoleCommand, { RoleName: 'Deployer' }).resolves({
      Role: { RoleName: 'Deployer', Arn: role, Path: '/platform/', RoleId: 'AROA', CreateDate: new Date() },
    });
    const session = { caller: caller(`arn:aws:sts::${account}:assumed-role/Deployer/ci`) };
    expect(await checkKeyAdministrator(aws.clients.iam, session, noAbort)).toEqual({
      check: 'key administrator',
      status: 'fix',
      found: `${role} is not among the key administrators (arn:aws:iam::${account}:role/aws-reserved/sso.amazonaws.com/*, arn:aws:iam::${account}:user/*): admin api-key rotate would be denied`,
      action: `deploy with -c keyAdministrators=${role} (it replaces the defaults: name any others too, comma-separated)`,
    });
    const given = { ...session, administrators: [`arn:aws:iam::${account}:role/platform/*`] };
    expect((await checkKeyAdministrator(aws.clients.iam, given, noAbort)).status).toBe('ok');
    const others = { ...session, administrators: [`arn:aws:iam::${account}:role/Other`] };
    expect((await checkKeyAdministrator(aws.clients.iam, others, noAbort)).action).toBe(
      `add ${role} to -c keyAdministrators (and to --key-administrators here)`,
    );
  });

  it("cannot check when IAM denies reading the role's path", async () => {
    const aws = preflightAccount();
    aws.iam.on(GetRoleCommand).rejects(awsError('AccessDenied'));
    expect(
      await checkKeyAdministrator(aws.clients.iam, { caller: caller(ssoSessionArn) }, noAbort),
    ).toMatchObject({
      status: 'cannot-check',
      found: `iam:GetRole on role ${ssoRoleName} was denied: the role's path, which STS leaves out and the key's policy matches, is unknown`,
    });
  });
});
