import { Duration } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  type GlobalSecondaryIndexPropsV2,
  ProjectionType,
} from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  type FunctionRoles,
  grantAccess,
  RouteFunction,
  type RouteFunctionResources,
} from '#infra/route-function';
import { announcementSweep } from '#infra/routes';
import {
  announcementDueAttribute,
  announcementIndexName,
  announcementShardAttribute,
  announcementShardPrefix,
} from '#shared/store/table-definition';

/**
 * The table's sparse index of answers not yet known to be announced: only items carrying the mark are in it, and
 * only their keys.
 */
export const announcementIndex: GlobalSecondaryIndexPropsV2 = {
  indexName: announcementIndexName,
  partitionKey: { name: announcementShardAttribute, type: AttributeType.STRING } satisfies Attribute,
  sortKey: { name: announcementDueAttribute, type: AttributeType.NUMBER } satisfies Attribute,
  projectionType: ProjectionType.KEYS_ONLY,
};

/**
 * The announcement sweep: a function on an EventBridge schedule (every minute) that sends again the webhook events
 * of answers whose sender died between the answer's write and its send. It may query the announcement index, read
 * and claim answered requests, and send to the webhook queue; nothing else.
 */
export class AnnouncementSweep extends Construct {
  readonly function: RouteFunction;

  constructor(
    scope: Construct,
    id: string,
    props: { resources: RouteFunctionResources; roles: FunctionRoles },
  ) {
    super(scope, id);
    const { resources } = props;
    const role = props.roles.newRole('AnnouncementSweep');
    grantAccess(role, announcementSweep.access, resources);
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${resources.table.tableArn}/index/${announcementIndexName}`],
        // Only the index's own shards, as the table's grants name their item kinds.
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${announcementShardPrefix}*`] },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
    this.function = new RouteFunction(scope, 'SweepAnnouncements', {
      handler: announcementSweep.handler,
      access: announcementSweep.access,
      resources,
      role,
      timeout: Duration.seconds(announcementSweep.timeoutSeconds),
    });
    new Rule(this, 'Schedule', {
      description: 'Sends again the webhook events of answers whose sender died before sending them',
      schedule: Schedule.rate(Duration.seconds(announcementSweep.intervalSeconds)),
      targets: [new LambdaFunction(this.function, { retryAttempts: 0 })],
    });
  }
}
