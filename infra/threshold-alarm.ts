import {
  Alarm,
  ComparisonOperator,
  type MathExpression,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';

export interface ThresholdAlarmOptions {
  readonly metric: Metric | MathExpression;
  readonly threshold: number;
  readonly evaluationPeriods: number;
  readonly description: string;
}

/**
 * How every alarm of the service goes off: at or above its threshold for `evaluationPeriods` periods in a row. No
 * data means nothing happened (no request, no error), never a breach.
 */
export function thresholdAlarm(scope: Construct, id: string, options: ThresholdAlarmOptions): Alarm {
  return new Alarm(scope, id, {
    metric: options.metric,
    threshold: options.threshold,
    evaluationPeriods: options.evaluationPeriods,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: options.description,
  });
}
