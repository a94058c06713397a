import { setTimeout as sleep } from 'node:timers/promises';
import { queueClientsHook } from '#test/bench/queue-calls';
import { type Send, type SendHook, storeClientHook } from '#test/bench/store-calls';

/** One command sent to the store or the queue, and when it was in flight (performance.now() ms). */
export interface RoundTrip {
  readonly to: 'store' | 'queue';
  readonly command: string;
  /** The capacity units it costs at least (capacityUnits). */
  readonly units: CapacityUnits;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** What one request sent: the totals by command, and the longest chain of round trips that waited on each other. */
export interface RoundTripFigures {
  readonly storeCommands: Record<string, number>;
  readonly queueCommands: Record<string, number>;
  /** Store and queue round trips together: a queue send is waited for as a store call is. */
  readonly depth: number;
  /** The store's round trips alone: what the design's depth targets count. */
  readonly storeDepth: number;
  /** The store's capacity units, at least: what on-demand tables bill and throttle. */
  readonly storeUnits: CapacityUnits;
}

/** Read and write units of on-demand DynamoDB. */
export interface CapacityUnits {
  readonly reads: number;
  readonly writes: number;
}

/**
 * The units a store command costs at least, its items being small (a read unit reads 4 KB strongly consistent, a
 * write unit writes 1 KB): one per item read or written, and twice that for each item of a transaction.
 */
export function capacityUnits(command: string, input: unknown): CapacityUnits {
  const { RequestItems, TransactItems } = (input ?? {}) as {
    RequestItems?: Record<string, { Keys?: unknown[] }>;
    TransactItems?: unknown[];
  };
  if (command.startsWith('TransactWrite')) return { reads: 0, writes: 2 * (TransactItems?.length ?? 0) };
  if (command.startsWith('BatchGet')) {
    const keys = Object.values(RequestItems ?? {}).reduce((sum, { Keys = [] }) => sum + Keys.length, 0);
    return { reads: keys, writes: 0 };
  }
  if (/^(Get|Query|Scan)/.test(command)) return { reads: 1, writes: 0 };
  return { reads: 0, writes: 1 };
}

const hooks = { store: storeClientHook, queue: queueClientsHook } as const satisfies Record<
  RoundTrip['to'],
  SendHook
>;

/** Routes both clients' sends through `wrap` while `measure` runs. */
async function hooked<T>(
  wrap: (to: RoundTrip['to'], send: Send) => Send,
  measure: () => Promise<T>,
): Promise<T> {
  const restoreStore = await hooks.store((send) => wrap('store', send));
  try {
    const restoreQueue = await hooks.queue((send) => wrap('queue', send));
    try {
      return await measure();
    } finally {
      restoreQueue();
    }
  } finally {
    restoreStore();
  }
}

/** Runs `measure` and notes every store and queue command it sent, with the time each was in flight. */
export async function tracingRoundTrips<T>(
  measure: () => Promise<T>,
): Promise<{ result: T; trips: RoundTrip[]; figures: () => RoundTripFigures }> {
  const trips: RoundTrip[] = [];
  const result = await hooked(
    (to, send) =>
      async function (command, ...rest) {
        const startedAt = performance.now();
        try {
          return await send.call(this, command, ...rest);
        } finally {
          const name = command.constructor.name;
          const units =
            to === 'store'
              ? capacityUnits(name, (command as { input?: unknown }).input)
              : { reads: 0, writes: 0 };
          trips.push({ to, command: name, units, startedAt, endedAt: performance.now() });
        }
      },
    measure,
  );
  const byCommand = (to: RoundTrip['to']) => {
    const counts: Record<string, number> = {};
    for (const trip of trips) if (trip.to === to) counts[trip.command] = (counts[trip.command] ?? 0) + 1;
    return counts;
  };
  return {
    result,
    trips,
    figures: () => ({
      storeCommands: byCommand('store'),
      queueCommands: byCommand('queue'),
      depth: sequentialDepth(trips),
      storeDepth: sequentialDepth(trips.filter((trip) => trip.to === 'store')),
      storeUnits: {
        reads: trips.reduce((sum, trip) => sum + trip.units.reads, 0),
        writes: trips.reduce((sum, trip) => sum + trip.units.writes, 0),
      },
    }),
  };
}

/**
 * The longest chain of round trips each of which started after the one before it had ended: the ones a request
 * waits for one after another. A send that starts while another is in flight could not have needed its answer, so it
 * adds to the total but not to this.
 */
export function sequentialDepth(trips: readonly RoundTrip[]): number {
  const sorted = [...trips].sort((a, b) => a.startedAt - b.startedAt);
  const chain: number[] = [];
  sorted.forEach((trip, index) => {
    let longest = 0;
    for (let before = 0; before < index; before++) {
      const earlier = sorted[before] as RoundTrip;
      if (earlier.endedAt <= trip.startedAt) longest = Math.max(longest, chain[before] ?? 0);
    }
    chain.push(longest + 1);
  });
  return Math.max(0, ...chain);
}

/** A fixed wait added to every round trip, as an AWS region would add it: see withLatency. */
export interface LatencyModel {
  readonly storeMs: number;
  readonly queueMs: number;
}

/**
 * Runs `measure` with every store command delayed by `model.storeMs` and every queue command by `model.queueMs`
 * before it is sent: the local store answers in well under a millisecond, an in-region DynamoDB call in about 5 ms,
 * so this is what a request waits for in AWS beside its CPU.
 */
export function withLatency<T>(model: LatencyModel, measure: () => Promise<T>): Promise<T> {
  return hooked(
    (to, send) =>
      async function (command, ...rest) {
        await sleep(to === 'store' ? model.storeMs : model.queueMs);
        return send.call(this, command, ...rest);
      },
    measure,
  );
}
