/**
 * Resources a deployment adopts instead of making them, by name or ARN: what a destroyed stack retained, or a second
 * region's replicas. The stack takes each as the `-c` option {@link existingResourceOptions} names; the preflight
 * checks each exists before the deploy.
 */
export interface ExistingResources {
  readonly tableName?: string;
  readonly auditTableName?: string;
  readonly apiKeySecretArn?: string;
  readonly hashKeySecretArn?: string;
  readonly vapidKeysSecretArn?: string;
  readonly keyArn?: string;
}

/** The context option (`-c <name>=…`) of each existing resource. */
export const existingResourceOptions = {
  tableName: 'existingTableName',
  auditTableName: 'existingAuditTableName',
  apiKeySecretArn: 'existingApiKeySecretArn',
  hashKeySecretArn: 'existingHashKeySecretArn',
  vapidKeysSecretArn: 'existingVapidKeysSecretArn',
  keyArn: 'existingKeyArn',
} as const satisfies Record<keyof ExistingResources, string>;
