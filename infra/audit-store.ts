import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { type ITable, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { serviceTableProps } from '#infra/service-table';
import { thresholdAlarm } from '#infra/threshold-alarm';
import { auditFailureMetric } from '#shared/audit/audit-record';

export interface AuditStoreProps {
  /** What becomes of the table when the stack goes: anything but DESTROY keeps it and refuses its deletion. */
  readonly removalPolicy: RemovalPolicy;
  /** A table that already holds the trail (one a destroyed stack retained, or a replica), used instead of a new one. */
  readonly existingTable?: ITable;
  /** Regions in which the table gets a replica, with the same resource policy. */
  readonly replicaRegions: readonly string[];
  readonly metricsNamespace: string;
  /** The `service` dimension of the functions' own metrics. */
  readonly serviceName: string;
}

/**
 * The audit trail's table, apart from the service's own so that no grant on one reaches the other: on demand, with
 * point-in-time recovery, records purged by TTL when their retention ends. Its resource policy refuses UpdateItem,
 * DeleteItem and BatchWriteItem to every principal, the account's administrators included, so that a record, once
 * put, stays as it was until TTL removes it (TTL deletes are the service's own and pass no policy). The policy
 * leaves the table's management alone (an administrator can still read, change the policy or restore from backup),
 * so nobody is locked out of their own table.
 */
export class AuditStore extends Construct {
  readonly table: ITable;
  /** Goes off when a function could not write a record and logged it instead (shared/audit/write-audit-record.ts). */
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: AuditStoreProps) {
    super(scope, id);
    const appendOnly = new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'AppendOnly',
          effect: Effect.DENY,
          principals: [new AnyPrincipal()],
          actions: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
          // A table's resource policy names the table as `*`: its own ARN is not known before it exists.
          resources: ['*'],
        }),
      ],
    });
    this.table =
      props.existingTable ??
      new TableV2(this, 'Table', {
        ...serviceTableProps(props.removalPolicy),
        resourcePolicy: appendOnly,
        ...(props.replicaRegions.length
          ? { replicas: props.replicaRegions.map((region) => ({ region, resourcePolicy: appendOnly })) }
          : {}),
      });
    this.alarm = thresholdAlarm(this, 'AuditRecordsNotWritten', {
      description:
        'A function could not write an audit record; the record is in its log (message "Audit record not written").',
      metric: new Metric({
        namespace: props.metricsNamespace,
        metricName: auditFailureMetric,
        dimensionsMap: { service: props.serviceName },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      threshold: 1,
      evaluationPeriods: 1,
    });
  }
}
