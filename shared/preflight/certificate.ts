import { type ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
import { regionOf } from '#shared/preflight/arn';
import { errorName, unlessDenied } from '#shared/preflight/aws-errors';
import { type CheckResult, fix, ok } from '#shared/preflight/check-result';

export interface CertificatePlan {
  readonly arn: string;
  /** `-c domainName`, which the certificate must cover. */
  readonly domainName?: string;
  /** The region the certificate must be in: us-east-1 for CloudFront, else the stack's. */
  readonly region: string;
  /** Why it must be in that region, for the line that says it is not. */
  readonly because: string;
}

/** Whether `name` is one of the certificate's names, a wildcard standing for one label (`*.example.com`). */
export function covers(names: readonly string[], name: string): boolean {
  const wanted = name.toLowerCase();
  return names.some((each) => {
    const certified = each.toLowerCase();
    if (!certified.startsWith('*.')) return certified === wanted;
    const dot = wanted.indexOf('.');
    return dot > 0 && wanted.slice(dot + 1) === certified.slice(2);
  });
}

/** The custom domain's certificate: in the region that serves it, issued, and for the domain. */
export async function checkCertificate(
  /** ACM in the region the certificate must be in. */
  acm: ACMClient,
  plan: CertificatePlan,
  signal: AbortSignal,
): Promise<CheckResult> {
  const check = 'certificate';
  const request = `aws acm request-certificate --domain-name ${plan.domainName ?? '<domain>'} --validation-method DNS --region ${plan.region}`;
  const region = regionOf(plan.arn);
  if (region !== plan.region)
    return fix(
      check,
      `${plan.arn} is ${region ? `in ${region}` : 'not an ARN'}, and ${plan.because}`,
      request,
    );
  let certificate;
  try {
    ({ Certificate: certificate } = await acm.send(
      new DescribeCertificateCommand({ CertificateArn: plan.arn }),
      { abortSignal: signal },
    ));
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException')
      return fix(check, `no certificate ${plan.arn}`, request);
    return unlessDenied(check, 'acm:DescribeCertificate', plan.arn, error);
  }
  const status = certificate?.Status;
  if (status === 'PENDING_VALIDATION')
    return fix(
      check,
      `${plan.arn} waits for its DNS validation`,
      `create its validation record (aws acm describe-certificate --certificate-arn ${plan.arn} --region ${region} --query 'Certificate.DomainValidationOptions[0].ResourceRecord')`,
    );
  if (status !== 'ISSUED') return fix(check, `${plan.arn} is ${status}`, request);
  const names = [certificate?.DomainName ?? '', ...(certificate?.SubjectAlternativeNames ?? [])];
  if (plan.domainName && !covers(names, plan.domainName))
    return fix(
      check,
      `${plan.arn} is for ${[...new Set(names)].join(', ')}, not ${plan.domainName}`,
      request,
    );
  return ok(check, `${plan.arn} is issued, in ${region}`);
}
