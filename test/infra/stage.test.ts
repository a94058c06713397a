import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';

function synthesize(props: AuthorizationServiceStackProps): Template {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new AuthorizationServiceStack(app, 'Test', props));
}

const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';

/** The generated endpoint's URL as the BaseUrl output joins it, followed by `suffix`. */
const endpointUrl = (...suffix: string[]) => ({
  'Fn::Join': [
    '',
    [
      'https://',
      { Ref: Match.anyValue() },
      '.execute-api.',
      { Ref: 'AWS::Region' },
      '.',
      { Ref: 'AWS::URLSuffix' },
      ...suffix,
    ],
  ],
});

describe('the API stage', () => {
  it('is $default by default, served at the root of the generated endpoint', () => {
    const template = synthesize({});
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: '$default' });
    template.hasOutput('BaseUrl', { Value: endpointUrl() });
  });

  it('may be named, and then the SDKs’ base URL ends with it: the functions drop it from the path they bind', () => {
    const template = synthesize({ stageName: 'prod' });
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'prod' });
    template.hasOutput('BaseUrl', { Value: endpointUrl('/prod') });
  });

  it('is mapped at the root of a custom domain, which then is the base URL', () => {
    const template = synthesize({
      stageName: 'prod',
      customDomain: { domainName: 'mfa.example.com', certificateArn },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
      Stage: 'prod',
      ApiMappingKey: Match.absent(),
    });
    template.hasOutput('BaseUrl', { Value: 'https://mfa.example.com' });
  });

  it('may not be named like the first segment of a route', () => {
    expect(() => synthesize({ stageName: 'organization' })).toThrow(/stageName organization/);
    expect(() => synthesize({ stageName: 'public' })).toThrow(/stageName public/);
  });
});
