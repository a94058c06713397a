import { App } from 'aws-cdk-lib';
import { AuthorizationServiceStack } from '#infra/stack';

const app = new App();
new AuthorizationServiceStack(app, String(app.node.tryGetContext('stackName') ?? 'MfaAuthorizationService'), {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  protectData: app.node.tryGetContext('protectData') !== 'false',
  allowHttpWebhooks: app.node.tryGetContext('allowHttpWebhooks') === 'true',
  ...(app.node.tryGetContext('webhookAllowedNetworks')
    ? { webhookAllowedNetworks: String(app.node.tryGetContext('webhookAllowedNetworks')) }
    : {}),
});
