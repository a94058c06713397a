import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBootstrap } from '#shared/preflight/bootstrap';
import {
  documentedBootstrapVersion,
  type RequiredBootstrapVersion,
  requiredBootstrapVersion,
} from '#shared/preflight/bootstrap-version';
import {
  account,
  awsError,
  noAbort,
  preflightAccount,
  region,
  withoutBootstrap,
} from '#test/support/preflight-account';

const required: RequiredBootstrapVersion = { version: 6, source: 'cdk.out/manifest.json' };

function bootstrapOf(ssm: ReturnType<typeof preflightAccount>, qualifier = 'hnb659fds') {
  return checkBootstrap(ssm.clients.ssm(region), { account, region, qualifier, required }, noAbort);
}

describe('the bootstrap check', () => {
  it("is ok with the bootstrap's version parameter at the version the assembly requires or later", async () => {
    const aws = preflightAccount();
    expect(await bootstrapOf(aws)).toEqual({
      check: `bootstrap ${region}`,
      status: 'ok',
      found: 'bootstrap version 21 (cdk.out/manifest.json needs 6 or later)',
    });
    expect(aws.ssm.get(region)?.commandCalls(GetParameterCommand)[0]?.args[0].input).toEqual({
      Name: '/cdk-bootstrap/hnb659fds/version',
    });
  });

  it('says to bootstrap a region that is not, with the exact command', async () => {
    const aws = preflightAccount();
    withoutBootstrap(aws, region);
    expect(await bootstrapOf(aws)).toMatchObject({
      status: 'fix',
      found: 'not bootstrapped for CDK (no SSM parameter /cdk-bootstrap/hnb659fds/version)',
      action: `run npx cdk bootstrap aws://${account}/${region}`,
    });
    expect((await bootstrapOf(aws, 'ops')).action).toBe(
      `run npx cdk bootstrap aws://${account}/${region} --qualifier ops`,
    );
  });

  it('says to bootstrap again a bootstrap older than required', async () => {
    const current = preflightAccount();
    current.ssm
      .get(region)
      ?.on(GetParameterCommand)
      .resolves({ Parameter: { Value: '6' } });
    expect((await bootstrapOf(current)).status).toBe('ok');
    const aws = preflightAccount();
    aws.ssm
      .get(region)
      ?.on(GetParameterCommand)
      .resolves({ Parameter: { Value: '5' } });
    expect(await bootstrapOf(aws)).toMatchObject({
      status: 'fix',
      found: 'bootstrap version 5, and cdk.out/manifest.json needs 6 or later',
      action: `run npx cdk bootstrap aws://${account}/${region}: it upgrades the bootstrap`,
    });
  });

  it('cannot check when reading the parameter is denied, and names the permission', async () => {
    const aws = preflightAccount();
    aws.ssm.get(region)?.on(GetParameterCommand).rejects(awsError('AccessDeniedException'));
    expect(await bootstrapOf(aws)).toMatchObject({
      status: 'cannot-check',
      found: 'ssm:GetParameter on /cdk-bootstrap/hnb659fds/version was denied',
    });
  });
});

describe('the bootstrap version the project requires', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mfa-assembly-'));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it("is the highest a synthesized assembly's stacks and asset manifests name, not the lookup role's", async () => {
    await writeFile(
      join(directory, 'manifest.json'),
      JSON.stringify({
        version: '55.0.0',
        artifacts: {
          'Stack.assets': { type: 'cdk:asset-manifest', properties: { requiresBootstrapStackVersion: 6 } },
          Stack: {
            type: 'aws:cloudformation:stack',
            properties: {
              requiresBootstrapStackVersion: 22,
              lookupRole: { requiresBootstrapStackVersion: 30 },
            },
          },
          Tree: { type: 'cdk:tree', properties: { file: 'tree.json' } },
        },
      }),
    );
    expect(await requiredBootstrapVersion(directory)).toEqual({
      version: 22,
      source: join(directory, 'manifest.json'),
    });
  });

  it("is CDK's documented minimum without an assembly, or with one that names none", async () => {
    expect(await requiredBootstrapVersion(join(directory, 'none'))).toEqual(documentedBootstrapVersion);
    await writeFile(join(directory, 'manifest.json'), '{"artifacts":{}}');
    expect(await requiredBootstrapVersion(directory)).toEqual(documentedBootstrapVersion);
    expect(documentedBootstrapVersion.version).toBe(6);
  });
});
