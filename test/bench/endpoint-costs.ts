import { writeFile } from 'node:fs/promises';
import type { PreparedRequest } from '#shared/client/api-client';
import { decryptJson } from '#shared/protocol/jwe';
import { type ApiSigningKey, type SignedExchange, unavoidableCryptoMs } from '#test/bench/crypto-cost';
import { type ClassName, classNames, type EndpointClass, flowClasses } from '#test/bench/endpoint-classes';
import { startProfiler } from '#test/bench/pipeline';
import { recordQueueAnswers } from '#test/bench/queue-calls';
import type { RouteTable } from '#test/bench/route-table';
import {
  type LatencyModel,
  type RoundTripFigures,
  tracingRoundTrips,
  type CapacityUnits,
  withLatency,
} from '#test/bench/round-trips';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { recordStoreAnswers, totalCalls } from '#test/bench/store-calls';

export interface Latency {
  readonly median: number;
  readonly p99: number;
}

export interface EndpointCostFigures {
  readonly name: ClassName;
  readonly route: string;
  readonly requests: number;
  readonly storeRoundTrips: number;
  /** Queue sends (an answer's webhook event, a create's push). */
  readonly queueRoundTrips: number;
  /** Store and queue round trips waited for one after another (round-trips.ts). */
  readonly roundTripDepth: number;
  /** Store round trips alone waited for one after another. */
  readonly storeRoundTripDepth: number;
  /** The store's capacity units per request, at least. */
  readonly storeUnits: CapacityUnits;
  /** The design's budget for storeRoundTripDepth, where it sets one. */
  readonly roundTripTarget: number | null;
  readonly storeCommands: Record<string, number>;
  /** Webhook queue commands: not store round trips, but round trips all the same. */
  readonly queueCommands: Record<string, number>;
  /** With the real store (in another process) and queue. */
  readonly serverCpuMsPerRequest: number;
  /** The unavoidable crypto of the same requests (crypto-cost.ts); 0 for the public endpoints, which have none. */
  readonly cryptoCpuMsPerRequest: number;
  /** Null where there is no crypto to compare with. */
  readonly ratioToCrypto: number | null;
  /** The same handler with the store's and the queue's answers replayed from memory: its own work, no I/O. */
  readonly cpuMsPerRequestWithoutIo?: number;
  /** Target ≤ 1.3, as pipeline.ts's. */
  readonly ratioWithoutIoToCrypto?: number | null;
  readonly latencyMs: Latency;
  /** With every store and queue round trip delayed as the latency model says, where it ran. */
  readonly modelledLatencyMs?: Latency;
}

export interface EndpointRunFigures {
  readonly classes: EndpointCostFigures[];
  /** The four steps of an approval, one after another for one user: the handlers' time only. */
  readonly flow: {
    readonly flows: number;
    readonly perSecond: number;
    readonly latencyMs: Latency;
    readonly modelledLatencyMs?: Latency;
  };
  /** The delays of the latency model's runs, where they ran. */
  readonly latencyModel?: LatencyModel;
}

interface Sample {
  readonly request: PreparedRequest;
  readonly sentAt: Date;
  readonly status: number;
  readonly body: string;
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * Each endpoint class through its real handler in-process, with the store in another process: server CPU and
 * latency per request, measured around each handler call alone (requests are signed, sealed and their responses read
 * between calls), the store and queue commands of one request, and the same requests' unavoidable crypto. The four
 * steps of an approval run as flows (create, device list, answer, poll for one user, then the next flow), so they need
 * no more than one user; the others run `requests` times each. With `withoutIo`, each class also runs again with the
 * store's and the queue's answers replayed from memory, as pipeline.ts does for its one request. With
 * `latencyModel` and `modelLatency`, each class also runs `requests` times (the flow classes as flows) with every
 * store and queue round trip delayed by the model's figures, for the latency a caller would see in AWS.
 */
export async function benchEndpointCosts(
  options: {
    readonly apiKey: ApiSigningKey;
    readonly table: RouteTable;
    readonly requests: number;
    readonly warmup: number;
    readonly withoutIo: boolean;
    /** With `withoutIo`: write each class's replayed run as a V8 CPU profile in this directory. */
    readonly profileDir?: string;
    /** Delays per round trip: for counting round trips, and with `modelLatency` for another run of each class. */
    readonly latencyModel?: LatencyModel;
    readonly modelLatency?: boolean;
  },
  classes: Record<ClassName, EndpointClass>,
): Promise<EndpointRunFigures> {
  const { table } = options;
  const call = async (endpoint: EndpointClass, request: PreparedRequest): Promise<Sample> => {
    const routed = table.route(request);
    if (routed.routeKey !== endpoint.route) throw new Error(`${endpoint.name} went to ${routed.routeKey}`);
    const sentAt = new Date();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const result = await routed.invoke();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const status = result.statusCode ?? 200;
    const body = result.body ?? '';
    if (status !== endpoint.status) throw new Error(`${endpoint.name} answered ${status}: ${body}`);
    await endpoint.observe(request, status, body);
    return { request, sentAt, status, body, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  const next = (endpoint: EndpointClass) => async () => call(endpoint, await endpoint.next());
  const others = classNames.filter((name) => !(flowClasses as readonly ClassName[]).includes(name));
  const flow = () => sequence(flowClasses.map((name) => next(classes[name])));

  // Warm up: module state, key imports and connections of each handler.
  for (const name of others) for (let i = 0; i < options.warmup; i++) await next(classes[name])();
  for (let i = 0; i < options.warmup; i++) await flow();

  // The store and queue commands of a request of each class, and how many of them it waited for in turn: with the
  // latency model's delays where it runs, so that round trips sent together overlap however fast the local store is.
  // A pause of the process (a collection, a busy neighbour) between two sends made together can only make them look
  // one after the other, never the reverse: the shallowest of a few requests is the class's depth.
  const commands = new Map<ClassName, RoundTripFigures>();
  const { latencyModel } = options;
  const underModel = <T>(measure: () => Promise<T>) =>
    latencyModel ? withLatency(latencyModel, measure) : measure();
  const counted = (name: ClassName) => async () => {
    const endpoint = classes[name];
    const request = await endpoint.next();
    const traced = await underModel(() => tracingRoundTrips(() => call(endpoint, request)));
    const figures = traced.figures();
    const shallowest = commands.get(name);
    if (!shallowest || figures.depth < shallowest.depth) commands.set(name, figures);
    return traced.result;
  };
  for (let round = 0; round < depthRounds; round++) {
    for (const name of others) await counted(name)();
    await sequence(flowClasses.map(counted));
  }

  const samples = new Map<ClassName, Sample[]>(classNames.map((name) => [name, []]));
  for (const name of others) {
    for (let i = 0; i < options.requests; i++) samples.get(name)?.push(await next(classes[name])());
  }
  const flowMs: number[] = [];
  for (let i = 0; i < options.requests; i++) {
    const steps = await flow();
    flowClasses.forEach((name, index) => samples.get(name)?.push(steps[index] as Sample));
    flowMs.push(steps.reduce((sum, step) => sum + step.ms, 0));
  }

  const modelled = new Map<ClassName, number[]>(classNames.map((name) => [name, []]));
  const modelledFlowMs: number[] = [];
  if (latencyModel && options.modelLatency) {
    await withLatency(latencyModel, async () => {
      for (const name of others) {
        for (let i = 0; i < options.requests; i++) modelled.get(name)?.push((await next(classes[name])()).ms);
      }
      for (let i = 0; i < options.requests; i++) {
        const steps = await flow();
        flowClasses.forEach((name, index) => modelled.get(name)?.push((steps[index] as Sample).ms));
        modelledFlowMs.push(steps.reduce((sum, step) => sum + step.ms, 0));
      }
    });
  }

  const withoutIo = new Map<ClassName, number>();
  if (options.withoutIo) {
    // In flow order, so that each class finds the state the one before left: a pending request, an answered one.
    for (const name of [...others, ...flowClasses]) {
      const endpoint = classes[name];
      const [recorded, ...batch] = await endpoint.sameTarget(options.requests + 1);
      const store = await recordStoreAnswers();
      const queue = await recordQueueAnswers();
      try {
        // One real request records the answers, which the others then get from memory.
        await call(endpoint, recorded as PreparedRequest);
        store.replay();
        queue.replay();
        const events = batch.map((request) => table.route(request));
        const profiler = options.profileDir ? await startProfiler() : undefined;
        const cpu = await cpuMs(async () => {
          for (const routed of events) {
            const result = await routed.invoke();
            if (result.statusCode !== endpoint.status)
              throw new Error(`${name} answered ${result.statusCode} with replayed answers: ${result.body}`);
          }
        });
        withoutIo.set(name, cpu / batch.length);
        if (profiler && options.profileDir) {
          const file = `${options.profileDir}/class-${name.replace(/\W+/g, '-')}.cpuprofile`;
          await writeFile(file, JSON.stringify(await profiler.stop()));
        }
      } finally {
        queue.restore();
        store.restore();
      }
    }
  }

  const figures: EndpointCostFigures[] = [];
  for (const name of classNames) {
    const endpoint = classes[name];
    const measured = samples.get(name) ?? [];
    const crypto = endpoint.caller
      ? (await unavoidableCryptoMs(options.apiKey, await exchanges(endpoint, measured))) / measured.length
      : 0;
    const server = measured.reduce((sum, sample) => sum + sample.cpuMs, 0) / measured.length;
    const own = withoutIo.get(name);
    const counts = commands.get(name) ?? {
      storeCommands: {},
      queueCommands: {},
      depth: 0,
      storeDepth: 0,
      storeUnits: { reads: 0, writes: 0 },
    };
    const delayed = modelled.get(name) ?? [];
    const latencies = measured.map((sample) => sample.ms);
    figures.push({
      name,
      route: endpoint.route,
      requests: measured.length,
      storeRoundTrips: totalCalls(counts.storeCommands),
      queueRoundTrips: totalCalls(counts.queueCommands),
      roundTripDepth: counts.depth,
      storeRoundTripDepth: counts.storeDepth,
      storeUnits: counts.storeUnits,
      roundTripTarget: endpoint.roundTripTarget ?? null,
      storeCommands: counts.storeCommands,
      queueCommands: counts.queueCommands,
      serverCpuMsPerRequest: round(server),
      cryptoCpuMsPerRequest: round(crypto),
      ratioToCrypto: crypto > 0 ? round(server / crypto, 2) : null,
      ...(own === undefined
        ? {}
        : {
            cpuMsPerRequestWithoutIo: round(own),
            ratioWithoutIoToCrypto: crypto > 0 ? round(own / crypto, 2) : null,
          }),
      latencyMs: median99(latencies),
      ...(delayed.length > 0 ? { modelledLatencyMs: median99(delayed) } : {}),
    });
  }
  const totalFlowMs = flowMs.reduce((sum, ms) => sum + ms, 0);
  return {
    classes: figures,
    flow: {
      flows: flowMs.length,
      perSecond: Math.round(flowMs.length / (totalFlowMs / 1000)),
      latencyMs: median99(flowMs),
      ...(modelledFlowMs.length > 0 ? { modelledLatencyMs: median99(modelledFlowMs) } : {}),
    },
    ...(latencyModel ? { latencyModel } : {}),
  };
}

const median99 = (values: readonly number[]): Latency => ({
  median: round(percentile(values, 50)),
  p99: round(percentile(values, 99)),
});

/** Requests traced per class for its round-trip depth (see the tracing above). */
const depthRounds = 3;

async function sequence<T>(steps: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  for (const step of steps) results.push(await step());
  return results;
}

/** The crypto each measured request needed, with its response body's plaintext read back with the caller's key. */
async function exchanges(endpoint: EndpointClass, samples: readonly Sample[]): Promise<SignedExchange[]> {
  const caller = endpoint.caller;
  if (!caller) return [];
  const encoder = new TextEncoder();
  return Promise.all(
    samples.map(async (sample) => ({
      token: (sample.request.headers.authorization as string).split(' ')[1] as string,
      sentAt: sample.sentAt,
      caller,
      body: sample.request.body,
      response: sample.body
        ? encoder.encode(JSON.stringify((await decryptJson(sample.body, () => caller.privateKey)).value))
        : undefined,
      status: sample.status,
      pushPackage: endpoint.pushPackage ?? false,
    })),
  );
}
