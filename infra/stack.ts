import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { adoptExisting } from '#infra/existing-resources';
import type { ExistingResources } from '#shared/existing-resources';
import { MfaAuthorizationService, type MfaAuthorizationServiceProps } from '#infra/mfa-authorization-service';

export type AuthorizationServiceStackProps = StackProps &
  MfaAuthorizationServiceProps & {
    /** Resources to adopt instead of making them (the `-c existing…` options). */
    readonly existing?: ExistingResources;
  };

/**
 * The app's stack: the service and the outputs the admin CLI and the SDKs are given. The service's construct id is
 * `Default`, which CDK leaves out of logical ids, so the stack's resources keep the ids they had when they were made
 * in the stack itself.
 */
export class AuthorizationServiceStack extends Stack {
  readonly service: MfaAuthorizationService;

  constructor(scope: Construct, id: string, props: AuthorizationServiceStackProps = {}) {
    super(scope, id, props);
    const service = new MfaAuthorizationService(this, 'Default', {
      ...props,
      ...adoptExisting(this, props.existing ?? {}),
    });
    this.service = service;
    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output('BaseUrl', service.baseUrl, 'Base URL to give the SDKs');
    if (service.customDomainTarget) {
      output(
        'CustomDomainTarget',
        service.customDomainTarget,
        'Point a CNAME (or alias) of the custom domain here',
      );
    }
    output('TableName', service.table.tableName, 'For `admin --table`');
    output('AuditTableName', service.auditTable.tableName, 'For `admin audit --audit-table`');
    output('ApiKeySecretArn', service.keyCustody.secrets.apiKeys.secretArn, 'For `admin --secret-id`');
    output(
      'HashKeySecretArn',
      service.keyCustody.secrets.hashKey.secretArn,
      'For `admin directory push --hash-key-secret-id`',
    );
    output(
      'VapidKeysSecretArn',
      service.keyCustody.secrets.vapidKeys.secretArn,
      'For -c existingVapidKeysSecretArn, deploying again',
    );
    output('SecretsKeyArn', service.keyCustody.key.keyArn, 'For -c existingKeyArn, deploying again');
    output('ApiKeyId', service.currentApiKeyId, 'The kid of the API key the deployment made or found');
    output('WebhookQueueUrl', service.webhookQueue.queueUrl, 'For `admin webhooks`');
    output('WebhookDeadLetterQueueUrl', service.webhookDeadLetterQueue.queueUrl, 'For `admin webhooks`');
    output('PushQueueUrl', service.pushQueue.queueUrl, 'For `admin push`');
    output('PushDeadLetterQueueUrl', service.pushDeadLetterQueue.queueUrl, 'For `admin push`');
    output('FunctionLogGroupName', service.functionLogs.logGroupName, 'For `aws logs tail`');
  }
}
