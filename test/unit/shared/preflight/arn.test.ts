import { describe, expect, it } from 'vitest';
import { arnLike, regionOf } from '#shared/preflight/arn';

describe('arnLike, as IAM matches aws:PrincipalArn', () => {
  const sso = 'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/*';

  it("lets * stand for any run of characters within a part, the resource's slashes included", () => {
    expect(
      arnLike(
        'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Admin_1',
        sso,
      ),
    ).toBe(true);
    expect(arnLike('arn:aws:iam::123456789012:role/Deployer', sso)).toBe(false);
    expect(arnLike('arn:aws:iam::123456789012:user/ops/alice', 'arn:aws:iam::123456789012:user/*')).toBe(
      true,
    );
  });

  it('matches each colon-separated part on its own: * does not reach into the next', () => {
    expect(arnLike('arn:aws:iam::123456789012:role/x', 'arn:aws:*')).toBe(false);
    expect(arnLike('arn:aws:iam::123456789012:role/x', 'arn:*:iam::*:role/*')).toBe(true);
    expect(arnLike('arn:aws:iam::210987654321:role/x', 'arn:aws:iam::123456789012:role/*')).toBe(false);
  });

  it('lets ? stand for exactly one character, and matches case and dots literally', () => {
    const pattern = 'arn:aws:iam::123456789012:role/cdk-?-cfn-exec-role';
    expect(arnLike('arn:aws:iam::123456789012:role/cdk-a-cfn-exec-role', pattern)).toBe(true);
    expect(arnLike('arn:aws:iam::123456789012:role/cdk-ab-cfn-exec-role', pattern)).toBe(false);
    expect(arnLike('arn:aws:iam::123456789012:role/cdk--cfn-exec-role', pattern)).toBe(false);
    expect(
      arnLike('arn:aws:iam::123456789012:role/Deployer', 'arn:aws:iam::123456789012:role/deployer'),
    ).toBe(false);
    expect(arnLike('arn:aws:iam::123456789012:role/aXb', 'arn:aws:iam::123456789012:role/a.b')).toBe(false);
  });

  it('matches nothing that is not an ARN', () => {
    expect(arnLike('Deployer', '*')).toBe(false);
    expect(arnLike('arn:aws:iam::123456789012:role/x', 'Deployer')).toBe(false);
  });
});

describe('regionOf', () => {
  it("reads an ARN's region, a resource with colons of its own too", () => {
    expect(regionOf('arn:aws:secretsmanager:eu-west-1:123456789012:secret:ApiKeyRing-AbCdEf')).toBe(
      'eu-west-1',
    );
    expect(regionOf('not-an-arn')).toBeUndefined();
  });
});
