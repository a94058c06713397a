import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse } from 'aws-lambda';
import { resourcesOfType } from '#infra/assembly/cloud-assembly';
import type { LocalDeployment } from '#infra/assembly/local-deployment';
import { localAccount, localRegion } from '#infra/assembly/physical-names';
import { startQueuePoller } from '#infra/local/queue-poller';

/** Stops what was started, after the work in progress. */
export type Stop = () => Promise<void>;

/**
 * The template's SQS event source mappings, run as Lambda runs them: batches of the mapping's size gathered over its
 * batching window, up to its maximum concurrency at once, each failed item left for its visibility timeout to end
 * (and for the queue's redrive policy to move it to the dead letters), a failed invocation failing the whole batch.
 */
export async function startEventSourceMappings(deployment: LocalDeployment): Promise<Stop[]> {
  const stops: Stop[] = [];
  for (const [logicalId, mapping] of resourcesOfType(
    deployment.stack.template,
    'AWS::Lambda::EventSourceMapping',
  )) {
    const properties = mapping.Properties ?? {};
    if (properties.Enabled === false) continue;
    const queueArn = await deployment.resolveString(properties.EventSourceArn);
    const queue = await deployment.resource(deployment.logicalIdOf(queueArn));
    const functionId = deployment.functionNamed(await deployment.resolveString(properties.FunctionName));
    const pool = await deployment.pool(functionId);
    const reportsItems = ((properties.FunctionResponseTypes ?? []) as string[]).includes(
      'ReportBatchItemFailures',
    );
    const poller = startQueuePoller({
      endpoint: deployment.endpoints.AWS_ENDPOINT_URL_SQS as string,
      queueUrl: queue.ref,
      queueArn,
      functionName: `${logicalId} → ${pool.definition.name}`,
      handler: async (event) => {
        const result = await pool.invoke(event);
        if (!result.ok) throw new Error(`${result.errorType}: ${result.errorMessage}`);
        return reportsItems ? (result.payload as SQSBatchResponse | undefined) : undefined;
      },
      batchSize: Number(properties.BatchSize ?? 10),
      batchingWindowMs: Number(properties.MaximumBatchingWindowInSeconds ?? 0) * 1000,
      maxConcurrency: Number(
        (properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? 2,
      ),
      functionTimeoutMs: pool.definition.timeoutSeconds * 1000,
      idleMs: 25,
    });
    stops.push(() => poller.stop());
  }
  return stops;
}

/**
 * The template's scheduled EventBridge rules: each target function invoked every `rate(…)`, with the target's input
 * or EventBridge's scheduled event, one run of a target at a time. A cron expression is left out, and said so.
 */
export async function startSchedules(
  deployment: LocalDeployment,
  log: (line: string) => void,
): Promise<Stop[]> {
  const stops: Stop[] = [];
  for (const [logicalId, rule] of resourcesOfType(deployment.stack.template, 'AWS::Events::Rule')) {
    const properties = rule.Properties ?? {};
    if (properties.State === 'DISABLED' || typeof properties.ScheduleExpression !== 'string') continue;
    const intervalMs = rateMs(properties.ScheduleExpression);
    if (intervalMs === undefined) {
      log(`${logicalId}: ${properties.ScheduleExpression} is not run locally (only rate expressions are)`);
      continue;
    }
    const ruleArn = `arn:aws:events:${localRegion}:${localAccount}:rule/${logicalId}`;
    for (const target of (properties.Targets ?? []) as { Arn: unknown; Input?: string }[]) {
      const pool = await deployment.pool(
        deployment.functionNamed(await deployment.resolveString(target.Arn)),
      );
      let running: Promise<unknown> | undefined;
      const timer = setInterval(() => {
        if (running) return;
        const event =
          target.Input === undefined
            ? {
                version: '0',
                id: randomUUID(),
                'detail-type': 'Scheduled Event',
                source: 'aws.events',
                account: localAccount,
                time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                region: localRegion,
                resources: [ruleArn],
                detail: {},
              }
            : (JSON.parse(target.Input) as unknown);
        running = pool
          .invoke(event)
          .catch((error: unknown) => log(`${logicalId}: ${(error as Error).message}`))
          .finally(() => {
            running = undefined;
          });
      }, intervalMs);
      stops.push(async () => {
        clearInterval(timer);
        await running;
      });
    }
  }
  return stops;
}

const units: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** `rate(5 minutes)` in milliseconds; undefined for anything else. */
export function rateMs(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression.trim());
  if (!match) return undefined;
  return Number(match[1]) * (units[match[2] as string] as number);
}
