import { inBenchProcess } from '#test/bench/bench-process';
import { type ColdStartsFigures, coldStartTargetMs } from '#test/bench/cold-start';
import { round } from '#test/bench/stats';

export interface AssemblyColdStartFigures {
  readonly repetitions: number;
  /** The Node the functions ran on (`v24.…`), and its runtime client (`aws-lambda-ric 4.0.2`). */
  readonly node: string;
  readonly runtimeClient: string;
  /** What could not be had as Lambda has it, and what ran instead (lambda-node.ts); empty when all could. */
  readonly notes: readonly string[];
  /** The login path's functions, in the order of an approval. */
  readonly functions: readonly AssemblyFunctionFigures[];
  /** The index.mjs of every function the stack bundles, without its source map. */
  readonly bundles: readonly { readonly function: string; readonly bytes: number }[];
}

export interface AssemblyFunctionFigures {
  /** Its module under functions/. */
  readonly handler: string;
  readonly route: string;
  readonly logicalId: string;
  /** Its TracingConfig is Active: traced to the local X-Ray daemon, as in AWS. */
  readonly traced: boolean;
  readonly status: number;
  /** index.mjs, without its source map. */
  readonly bundleBytes: number;
  /** The modules beside it, which it loads on first use: tracing.mjs, webauthn.mjs. */
  readonly besideBytes: Readonly<Record<string, number>>;
  /**
   * Medians over the repetitions. Init is Lambda's Init Duration: from the process's start to its runtime client's
   * first request for work (Node's boot, the runtime client, the bundle's import).
   */
  readonly initMs: number;
  /** The first invocation, after init (a traced function loads its tracer then). */
  readonly firstRequestMs: number;
  /** Init and first request: the cold start (target ≤ 150 ms). */
  readonly coldStartMs: number;
}

/**
 * The shipped bundles of the login path (create, device list, answer, poll), as `cdk deploy` ships them: the cloud
 * assembly run by `npm start -- --assembly`, each function in execution environments of Lambda's Node with its
 * template's environment, traced, reached over HTTP through the template's API; each request in a fresh execution
 * environment, `repetitions` times (assembly-cold-start-process.ts). In a process of its own, since the assembly
 * runtime sets its engines' environment in the process that runs it.
 */
export function benchAssemblyColdStarts(repetitions: number): Promise<AssemblyColdStartFigures> {
  return inBenchProcess(
    'test/bench/assembly-cold-start-process.ts',
    [String(repetitions)],
    'the assembly cold-start bench',
  );
}

/** A table row per login function: the assembly's figures, beside its esbuild bundle's in the same run. */
export function assemblyColdStartRows(
  assembly: AssemblyColdStartFigures,
  source: ColdStartsFigures,
): Record<string, Record<string, string | number>> {
  const kb = (bytes: number) => round(bytes / 1024, 1);
  return Object.fromEntries(
    assembly.functions.map((each) => {
      const bundle = source.bundles.find((other) => other.handler === each.handler);
      return [
        each.handler,
        {
          route: each.route,
          traced: each.traced ? 'yes' : 'no',
          'index.mjs KB': kb(each.bundleBytes),
          'beside it, KB': Object.entries(each.besideBytes)
            .map(([file, bytes]) => `${file} ${kb(bytes)}`)
            .join(', '),
          'init ms': each.initMs,
          'first request ms': each.firstRequestMs,
          [`cold start ms (≤ ${coldStartTargetMs})`]: each.coldStartMs,
          'esbuild bundle: import + request ms': bundle?.coldStartMs ?? '—',
          'esbuild bundle: since process start ms': bundle?.sinceProcessStartMs ?? '—',
          // Both include Node's boot: on a busy machine the ratio moves less than either figure.
          'cold start / since process start': bundle?.sinceProcessStartMs
            ? round(each.coldStartMs / bundle.sinceProcessStartMs, 2)
            : '—',
        },
      ];
    }),
  );
}
