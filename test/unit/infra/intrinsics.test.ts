import { describe, expect, it } from 'vitest';
import { rateMs } from '#infra/assembly/event-sources';
import { type ResolvedResources, resolveString, resolveValue } from '#infra/assembly/intrinsics';
import { generatedSecretValue } from '#infra/assembly/secret-values';

const secretArn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:Origin-abc123';
const resources: ResolvedResources = {
  ref: async (id) => ({ Queue: 'https://queue.local/q', 'AWS::Region': 'us-east-1' })[id] ?? `ref-of-${id}`,
  attribute: async (id, name) => `${id}.${name}`,
  secretValue: async (id, key) => {
    if (id !== secretArn) throw new Error(`no secret ${id}`);
    return key === undefined ? '{"user":"u","password":"p"}' : `${key}-value`;
  },
};

describe('the intrinsic functions of a template, resolved locally', () => {
  it('resolves Ref, GetAtt in both forms, Join, Select, Split and Sub with its variables', async () => {
    expect(
      await resolveValue(
        {
          url: { Ref: 'Queue' },
          arn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          dotted: { 'Fn::GetAtt': 'Distribution.DomainName' },
          joined: { 'Fn::Join': ['/', ['a', { Ref: 'AWS::Region' }]] },
          second: { 'Fn::Select': [1, { 'Fn::Split': [',', 'x,y,z'] }] },
          sub: { 'Fn::Sub': '${AWS::Region}:${Queue.Arn}:${!Literal}' },
          subWithVariables: { 'Fn::Sub': ['${Name}-${Queue}', { Name: { Ref: 'Table' } }] },
          list: [{ Ref: 'Table' }, 3, true],
        },
        resources,
      ),
    ).toEqual({
      url: 'https://queue.local/q',
      arn: 'Queue.Arn',
      dotted: 'Distribution.DomainName',
      joined: 'a/us-east-1',
      second: 'y',
      sub: 'us-east-1:Queue.Arn:${Literal}',
      subWithVariables: 'ref-of-Table-https://queue.local/q',
      list: ['ref-of-Table', 3, true],
    });
  });

  it('fills in Secrets Manager dynamic references, by ARN and JSON key, as CloudFormation does', async () => {
    const reference = (tail: string) => ({
      'Fn::Join': ['', ['{{resolve:secretsmanager:', secretArn, tail]],
    });
    expect(await resolveString(reference(':SecretString:::}}'), resources)).toBe(
      '{"user":"u","password":"p"}',
    );
    expect(await resolveString(reference(':SecretString:password::}} and more'), resources)).toBe(
      'password-value and more',
    );
  });

  it('says which function or reference it cannot run locally', async () => {
    await expect(resolveValue({ 'Fn::ImportValue': 'Export' }, resources)).rejects.toThrow(
      'Fn::ImportValue is not run locally',
    );
    await expect(resolveString('{{resolve:ssm:/a/b}}', resources)).rejects.toThrow(
      'The dynamic reference {{resolve:ssm:/a/b}} is not run locally',
    );
    await expect(resolveString({ 'Fn::Split': [',', 'a,b'] }, resources)).rejects.toThrow(
      'Expected a string',
    );
  });
});

describe('a schedule', () => {
  it("runs every rate(…) expression's interval; a cron expression is not run", () => {
    expect(rateMs('rate(1 minute)')).toBe(60_000);
    expect(rateMs('rate(5 minutes)')).toBe(300_000);
    expect(rateMs('rate(2 hours)')).toBe(7_200_000);
    expect(rateMs('rate(1 day)')).toBe(86_400_000);
    expect(rateMs('cron(0 12 * * ? *)')).toBeUndefined();
  });
});

describe('a secret CloudFormation generates', () => {
  it('holds the characters its options keep, at their length, under its template key when it has one', () => {
    expect(generatedSecretValue({})).toHaveLength(32);
    expect(generatedSecretValue({ PasswordLength: 48, ExcludePunctuation: true })).toMatch(
      /^[A-Za-z0-9]{48}$/,
    );
    expect(
      generatedSecretValue({
        ExcludeCharacters: 'abc',
        ExcludeUppercase: true,
        ExcludeNumbers: true,
        ExcludePunctuation: true,
        PasswordLength: 200,
      }),
    ).toMatch(/^[d-z]{200}$/);
    const templated = JSON.parse(
      generatedSecretValue({ SecretStringTemplate: '{"user":"admin"}', GenerateStringKey: 'password' }),
    ) as Record<string, string>;
    expect(templated.user).toBe('admin');
    expect(templated.password).toHaveLength(32);
  });
});
