import { DescribeCertificateCommand } from '@aws-sdk/client-acm';
import { describe, expect, it } from 'vitest';
import { checkCertificate, covers } from '#shared/preflight/certificate';
import { account, awsError, noAbort, preflightAccount } from '#test/support/preflight-account';

const arn = `arn:aws:acm:us-east-1:${account}:certificate/0a1b2c3d-0000-4000-8000-000000000000`;
const plan = {
  arn,
  domainName: 'mfa.example.com',
  region: 'us-east-1',
  because: 'CloudFront takes certificates from us-east-1 only',
};

describe('the certificate check', () => {
  it('is ok with an issued certificate for the domain, in the region that serves it', async () => {
    const aws = preflightAccount();
    expect(await checkCertificate(aws.clients.acm('us-east-1'), plan, noAbort)).toEqual({
      check: 'certificate',
      status: 'ok',
      found: `${arn} is issued, in us-east-1`,
    });
  });

  it("says to request one in the right region, without asking another region's ACM", async () => {
    const aws = preflightAccount();
    const elsewhere = arn.replace('us-east-1', 'eu-west-1');
    expect(
      await checkCertificate(aws.clients.acm('us-east-1'), { ...plan, arn: elsewhere }, noAbort),
    ).toEqual({
      check: 'certificate',
      status: 'fix',
      found: `${elsewhere} is in eu-west-1, and CloudFront takes certificates from us-east-1 only`,
      action:
        'aws acm request-certificate --domain-name mfa.example.com --validation-method DNS --region us-east-1',
    });
    expect(aws.acm.get('us-east-1')?.calls()).toHaveLength(0);
  });

  it('says to create the validation record of a certificate not yet issued', async () => {
    const aws = preflightAccount();
    aws.acm
      .get('us-east-1')
      ?.on(DescribeCertificateCommand)
      .resolves({
        Certificate: { CertificateArn: arn, Status: 'PENDING_VALIDATION', DomainName: 'mfa.example.com' },
      });
    expect(await checkCertificate(aws.clients.acm('us-east-1'), plan, noAbort)).toMatchObject({
      status: 'fix',
      found: `${arn} waits for its DNS validation`,
    });
  });

  it('says so of a certificate for other names', async () => {
    const aws = preflightAccount();
    const other = { ...plan, domainName: 'auth.example.org' };
    expect(await checkCertificate(aws.clients.acm('us-east-1'), other, noAbort)).toMatchObject({
      status: 'fix',
      found: `${arn} is for mfa.example.com, not auth.example.org`,
    });
  });

  it('cannot check when DescribeCertificate is denied', async () => {
    const aws = preflightAccount();
    aws.acm.get('us-east-1')?.on(DescribeCertificateCommand).rejects(awsError('AccessDeniedException'));
    expect((await checkCertificate(aws.clients.acm('us-east-1'), plan, noAbort)).status).toBe('cannot-check');
  });
});

describe('covers', () => {
  it('matches names without regard to case, a wildcard standing for exactly one label', () => {
    expect(covers(['*.example.com'], 'MFA.example.com')).toBe(true);
    expect(covers(['*.example.com'], 'a.b.example.com')).toBe(false);
    expect(covers(['*.example.com'], 'example.com')).toBe(false);
    expect(covers(['*.example.com'], '.example.com')).toBe(false);
    expect(covers(['example.com', 'mfa.example.com'], 'mfa.example.com')).toBe(true);
  });
});
