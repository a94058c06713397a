import { readFileSync } from 'node:fs';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { GetAccountSettingsCommand } from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import {
  account,
  awsError,
  preflight,
  preflightAccount,
  withoutBootstrap,
} from '#test/support/preflight-account';

/** The deploy guide shows a preflight's output: it must be what the command prints in the account it describes. */
const guide = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

function shownOutput(): string {
  const start = guide.indexOf('```\nok            credentials:') + 4;
  return guide.slice(start, guide.indexOf('\n```', start));
}

describe("the deploy guide's preflight", () => {
  it('prints what the command prints in an account bootstrapped in eu-west-1 alone, with a new Lambda quota', async () => {
    const aws = preflightAccount();
    aws.sts
      .on(GetCallerIdentityCommand)
      .resolves({ Account: account, Arn: `arn:aws:sts::${account}:assumed-role/Operator/alice` });
    withoutBootstrap(aws, 'us-east-1');
    aws.iam.on(GetRoleCommand, { RoleName: 'Operator' }).rejects(awsError('AccessDenied'));
    aws.lambda
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } });
    const run = await preflight({ region: 'eu-west-1' }, aws);
    expect(run.stdout).toBe(shownOutput());
    expect(guide).toContain(`\`${run.stderr}\` on stderr`);
  });
});
