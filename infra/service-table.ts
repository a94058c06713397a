import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, TableEncryptionV2, type TablePropsV2 } from 'aws-cdk-lib/aws-dynamodb';
import { partitionKeyName, sortKeyName, timeToLiveAttribute } from '#shared/store/table-definition';

/**
 * What the service's table and its audit table share: the key schema of shared/store/table-definition.ts, on demand,
 * TTL, point-in-time recovery, encrypted, and kept with deletion protection unless `removalPolicy` is DESTROY.
 */
export function serviceTableProps(removalPolicy: RemovalPolicy) {
  return {
    partitionKey: { name: partitionKeyName, type: AttributeType.STRING },
    sortKey: { name: sortKeyName, type: AttributeType.STRING },
    billing: Billing.onDemand(),
    timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: TableEncryptionV2.awsManagedKey(),
    deletionProtection: removalPolicy !== RemovalPolicy.DESTROY,
    removalPolicy,
  } satisfies TablePropsV2;
}
