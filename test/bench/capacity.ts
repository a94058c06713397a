import type { EndpointCostFigures } from '#test/bench/endpoint-costs';
import { round } from '#test/bench/stats';

/**
 * How the bench's per-request figures become what a deployment needs in AWS. A 1 024 MB arm64 function has about
 * 0.6 of a vCPU; an in-region DynamoDB round trip waits about 5 ms, an SQS send about 10 ms.
 */
export const awsModel = { cpuStretch: 1.7, storeRoundTripMs: 5, queueSendMs: 10 } as const;

/** The AWS limits of the capacity table, at their defaults. */
export const awsDefaults = {
  stageRequestsPerSecond: 100,
  accountHttpApiRequestsPerSecond: 10_000,
  lambdaConcurrency: 1_000,
  newTableWriteUnits: 4_000,
  newTableReadUnits: 12_000,
  tableWriteUnits: 40_000,
  tableReadUnits: 40_000,
  itemReadUnits: 3_000,
  itemWriteUnits: 1_000,
} as const;

/** The requests of one approval: create, device list, answer, and two polls (one pending, one answered). */
const approval: Partial<Record<EndpointCostFigures['name'], number>> = {
  'create auth': 1,
  'device list': 1,
  answer: 1,
  poll: 2,
};

export interface CapacityFigures {
  /** Per approval (5 requests), from the measured classes. */
  readonly perApproval: {
    readonly requests: number;
    /** Store read and write units, at least (round-trips.ts capacityUnits: a transaction's items cost two each). */
    readonly reads: number;
    readonly writes: number;
    /**
     * Seconds of function time in AWS: CPU stretched to the function's share of a vCPU, plus the waiting for the
     * round trips on its critical path (round trips sent together are waited for once).
     */
    readonly functionSeconds: number;
  };
  /** Approvals per second at which each default limit binds. */
  readonly approvalsPerSecondAt: Record<string, number>;
}

/** The approvals per second at which each AWS default binds, from one run's endpoint classes. */
export function capacityFigures(classes: readonly EndpointCostFigures[]): CapacityFigures {
  let requests = 0;
  let reads = 0;
  let writes = 0;
  let functionMs = 0;
  for (const figures of classes) {
    const times = approval[figures.name];
    if (!times) continue;
    // Queue sends follow the store's writes, so what the depth adds to the store's is queue sends waited for.
    const queueDepth = figures.roundTripDepth - figures.storeRoundTripDepth;
    requests += times;
    reads += times * figures.storeUnits.reads;
    writes += times * figures.storeUnits.writes;
    functionMs +=
      times *
      (figures.serverCpuMsPerRequest * awsModel.cpuStretch +
        figures.storeRoundTripDepth * awsModel.storeRoundTripMs +
        queueDepth * awsModel.queueSendMs);
  }
  const per = (limit: number, use: number) => (use > 0 ? Math.floor(limit / use) : Number.POSITIVE_INFINITY);
  const functionSeconds = functionMs / 1000;
  return {
    perApproval: { requests, reads, writes, functionSeconds: round(functionSeconds, 3) },
    approvalsPerSecondAt: {
      "the stage's throttle": per(awsDefaults.stageRequestsPerSecond, requests),
      "the account's HTTP API throttle": per(awsDefaults.accountHttpApiRequestsPerSecond, requests),
      'Lambda concurrency': per(awsDefaults.lambdaConcurrency, functionSeconds),
      'a new on-demand table (writes)': per(awsDefaults.newTableWriteUnits, writes),
      'a new on-demand table (reads)': per(awsDefaults.newTableReadUnits, reads),
      'the per-table on-demand quota (writes)': per(awsDefaults.tableWriteUnits, writes),
      'the per-table on-demand quota (reads)': per(awsDefaults.tableReadUnits, reads),
    },
  };
}
