import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { flowClasses } from '#test/bench/endpoint-classes';
import type { EndpointCostFigures, EndpointRunFigures } from '#test/bench/endpoint-costs';
import { round } from '#test/bench/stats';
import { projectRoot } from '#test/support/service-process';

const run = promisify(execFile);

/** One side's figures of one endpoint class, the better of its runs. */
export interface ClassSide {
  readonly storeRoundTrips: number;
  readonly queueRoundTrips: number;
  readonly roundTripDepth: number;
  readonly serverCpuMs: number;
  readonly cryptoMs: number;
  /** Null where the class has no crypto. */
  readonly serverToCrypto: number | null;
  readonly medianMs: number;
  /** Null where the run had no latency model. */
  readonly modelledMedianMs: number | null;
}

export interface ClassComparison {
  readonly name: string;
  /** Null where the class is measured on one side only. */
  readonly before: ClassSide | null;
  readonly after: ClassSide | null;
  /** After ÷ before: below 1 is cheaper or sooner. Null where a side lacks the figure. */
  readonly ratio: {
    readonly serverCpuMs: number | null;
    readonly cryptoMs: number | null;
    readonly serverToCrypto: number | null;
    readonly medianMs: number | null;
    readonly modelledMedianMs: number | null;
  };
}

/** The approval (create, device list, answer, poll, one each) on one side. */
export interface FlowSide {
  readonly perSecond: number;
  readonly medianMs: number;
  readonly modelledMedianMs: number | null;
  /** The four classes' server CPU over their crypto. */
  readonly serverToCrypto: number | null;
}

export interface BaselineComparison {
  readonly classes: ClassComparison[];
  readonly flow: {
    readonly before: FlowSide;
    readonly after: FlowSide;
    /** After's approvals per second ÷ before's. */
    readonly timesFaster: number;
    readonly medianRatio: number;
    readonly modelledMedianRatio: number | null;
    readonly serverToCryptoRatio: number | null;
  };
}

/** What the scaling section's first point holds, as the baseline's and today's bench both write it. */
export type ScalingRun = EndpointRunFigures;

/** The commit's full hash, or a clear error when this repository does not have it. */
export async function resolveCommit(commit: string): Promise<string> {
  try {
    const { stdout } = await run('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], {
      cwd: projectRoot,
    });
    return stdout.trim();
  } catch (error) {
    throw new Error(`--baseline: commit ${commit} is not in this repository (fetch it first)`, {
      cause: error,
    });
  }
}

/**
 * The commit checked out in a worktree of its own under the system's temporary directory, with this tree's
 * node_modules linked in; `remove` takes it away again. Refuses a commit whose locked packages are not all installed
 * here at the same versions: its bench would run with modules it was not written for. Packages this tree adds, or
 * declares where the commit had them only as another package's dependency, are no obstacle.
 */
export async function baselineTree(hash: string): Promise<{ path: string; remove(): Promise<void> }> {
  const [theirs, ours] = await Promise.all([
    run('git', ['show', `${hash}:package-lock.json`], { cwd: projectRoot, maxBuffer: 256 * 1024 * 1024 }),
    readFile(join(projectRoot, 'package-lock.json'), 'utf8'),
  ]);
  const differing = lockedDifferences(theirs.stdout, ours);
  if (differing.length > 0)
    throw new Error(
      `--baseline: ${differing.length} packages locked at ${hash.slice(0, 7)} are not installed here at the same ` +
        `version (${differing.slice(0, 3).join(', ')}): its bench cannot run with this tree's node_modules ` +
        '(install them in a checkout of that commit and compare by hand)',
    );
  const parent = await mkdtemp(join(tmpdir(), 'mfa-baseline-'));
  const path = join(parent, 'tree');
  const remove = async () => {
    // The link first: removing the worktree must never reach into this tree's node_modules.
    await unlink(join(path, 'node_modules')).catch(() => undefined);
    await run('git', ['worktree', 'remove', '--force', path], { cwd: projectRoot }).catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
    await run('git', ['worktree', 'prune'], { cwd: projectRoot }).catch(() => undefined);
  };
  try {
    await run('git', ['worktree', 'add', '--detach', path, hash], { cwd: projectRoot });
    await symlink(join(projectRoot, 'node_modules'), join(path, 'node_modules'), 'dir');
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}

/**
 * The scaling section of the bench in `tree`, in a process of its own as `npm run bench -- --only scaling` runs it,
 * with `flags`; its first scale point, read back from the JSON it writes in that tree.
 */
export async function scalingRun(
  tree: string,
  flags: readonly string[],
  quick: boolean,
): Promise<ScalingRun> {
  const args = ['test/bench/run.ts', '--only', 'scaling', ...(quick ? ['--quick'] : []), ...flags];
  try {
    await run(join(tree, 'node_modules/.bin/tsx'), args, { cwd: tree, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `the bench in ${tree} failed (tsx ${args.join(' ')}):\n${`${stdout}\n${stderr}`.trim().slice(-4000)}`,
      { cause: error },
    );
  }
  // Where that bench writes a --quick run and an --only scaling run.
  const file = join(tree, 'bench-results', quick ? 'quick.json' : 'only-scaling.json');
  const written = JSON.parse(await readFile(file, 'utf8')) as { scaling?: ScalingRun[] };
  const first = written.scaling?.[0];
  if (!first?.classes || !first.flow) throw new Error(`${file} holds no scaling figures`);
  return first;
}

const better = (values: readonly number[], pick: 'lower' | 'higher') =>
  pick === 'lower' ? Math.min(...values) : Math.max(...values);
const ratio = (after: number | null | undefined, before: number | null | undefined) =>
  after === null || after === undefined || before === null || before === undefined || before === 0
    ? null
    : round(after / before, 2);
const overCrypto = (server: number, crypto: number) => (crypto > 0 ? round(server / crypto, 2) : null);

/** A class's figures on one side: the better of its runs (noise on a shared machine only ever adds time). */
function classSide(runs: readonly ScalingRun[], name: string): ClassSide | null {
  const found = runs.flatMap((each) => each.classes.filter((figures) => figures.name === name));
  const [first] = found;
  if (!first) return null;
  const lowest = (pick: (figures: EndpointCostFigures) => number | undefined) => {
    const values = found.flatMap((figures) => pick(figures) ?? []);
    return values.length > 0 ? better(values, 'lower') : null;
  };
  const serverCpuMs = lowest((figures) => figures.serverCpuMsPerRequest) as number;
  const cryptoMs = lowest((figures) => figures.cryptoCpuMsPerRequest) as number;
  return {
    storeRoundTrips: first.storeRoundTrips,
    queueRoundTrips: first.queueRoundTrips,
    roundTripDepth: first.roundTripDepth,
    serverCpuMs,
    cryptoMs,
    serverToCrypto: overCrypto(serverCpuMs, cryptoMs),
    medianMs: lowest((figures) => figures.latencyMs.median) as number,
    modelledMedianMs: lowest((figures) => figures.modelledLatencyMs?.median),
  };
}

function flowSide(runs: readonly ScalingRun[], classes: readonly (ClassSide | null)[]): FlowSide {
  const modelled = runs.flatMap((each) => each.flow.modelledLatencyMs?.median ?? []);
  const sum = (pick: (side: ClassSide) => number) =>
    classes.reduce((total, side) => total + (side ? pick(side) : 0), 0);
  return {
    perSecond: better(
      runs.map((each) => each.flow.perSecond),
      'higher',
    ),
    medianMs: better(
      runs.map((each) => each.flow.latencyMs.median),
      'lower',
    ),
    modelledMedianMs: modelled.length > 0 ? better(modelled, 'lower') : null,
    serverToCrypto: classes.every((side) => side !== null)
      ? overCrypto(
          sum((side) => side.serverCpuMs),
          sum((side) => side.cryptoMs),
        )
      : null,
  };
}

/**
 * Each endpoint class and the approval before and after, side by side: each side's figure is the better of its runs,
 * the ratios after ÷ before (approvals per second as "× faster": after's ÷ before's). Classes are matched by name.
 */
export function compareRuns(before: readonly ScalingRun[], after: readonly ScalingRun[]): BaselineComparison {
  const names = [
    ...new Set([...after, ...before].flatMap((each) => each.classes.map((figures) => figures.name))),
  ];
  const classes = names.map((name): ClassComparison => {
    const was = classSide(before, name);
    const now = classSide(after, name);
    return {
      name,
      before: was,
      after: now,
      ratio: {
        serverCpuMs: ratio(now?.serverCpuMs, was?.serverCpuMs),
        cryptoMs: ratio(now?.cryptoMs, was?.cryptoMs),
        serverToCrypto: ratio(now?.serverToCrypto, was?.serverToCrypto),
        medianMs: ratio(now?.medianMs, was?.medianMs),
        modelledMedianMs: ratio(now?.modelledMedianMs, was?.modelledMedianMs),
      },
    };
  });
  const flowOf = (pick: (each: ClassComparison) => ClassSide | null) =>
    flowClasses.map((name) => {
      const found = classes.find((each) => each.name === name);
      return found ? pick(found) : null;
    });
  const was = flowSide(
    before,
    flowOf((each) => each.before),
  );
  const now = flowSide(
    after,
    flowOf((each) => each.after),
  );
  return {
    classes,
    flow: {
      before: was,
      after: now,
      timesFaster: ratio(now.perSecond, was.perSecond) ?? Number.NaN,
      medianRatio: ratio(now.medianMs, was.medianMs) ?? Number.NaN,
      modelledMedianRatio: ratio(now.modelledMedianMs, was.modelledMedianMs),
      serverToCryptoRatio: ratio(now.serverToCrypto, was.serverToCrypto),
    },
  };
}

/** Which side runs when: each side once early and once late, so that a machine warming up favours neither. */
export const runOrder = ['before', 'after', 'after', 'before'] as const;

/**
 * The scaling section's first point of `commit` (before) and of this working tree (after), each in a process of its
 * own with the same `flags`, in the order of `runOrder`, and the two side by side. The commit's worktree is removed
 * afterwards, also when a run fails.
 */
export async function benchBaseline(options: {
  readonly commit: string;
  readonly flags: readonly string[];
  readonly quick: boolean;
  readonly log: (line: string) => void;
}): Promise<{
  readonly commit: string;
  readonly order: typeof runOrder;
  readonly runs: { readonly before: ScalingRun[]; readonly after: ScalingRun[] };
  readonly comparison: BaselineComparison;
}> {
  const commit = await resolveCommit(options.commit);
  const tree = await baselineTree(commit);
  const runs: { before: ScalingRun[]; after: ScalingRun[] } = { before: [], after: [] };
  try {
    for (const [index, side] of runOrder.entries()) {
      const started = performance.now();
      const path = side === 'before' ? tree.path : projectRoot;
      runs[side].push(await scalingRun(path, options.flags, options.quick));
      options.log(
        `  run ${index + 1} of ${runOrder.length}: ${side === 'before' ? commit.slice(0, 7) : 'working tree'}, ` +
          `${round((performance.now() - started) / 1000, 1)} s`,
      );
    }
  } finally {
    await tree.remove();
  }
  return { commit, order: runOrder, runs, comparison: compareRuns(runs.before, runs.after) };
}

/** The packages (node_modules paths) `theirs` locks at a version `ours` does not; the projects' own entries aside. */
export function lockedDifferences(theirs: string, ours: string): string[] {
  type Lock = { packages?: Record<string, { version?: string; resolved?: string }> };
  const [before, after] = [JSON.parse(theirs) as Lock, JSON.parse(ours) as Lock];
  return Object.entries(before.packages ?? {})
    .filter(([path]) => path.startsWith('node_modules/'))
    .filter(([path, locked]) => {
      const installed = after.packages?.[path];
      return installed?.version !== locked.version || installed?.resolved !== locked.resolved;
    })
    .map(([path]) => path.slice('node_modules/'.length));
}
