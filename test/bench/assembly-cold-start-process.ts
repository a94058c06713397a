import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assemblyApi } from '#infra/assembly/api-routes';
import { startAssemblyRuntime } from '#infra/assembly/runtime';
import { httpRoutes } from '#infra/routes';
import type { AssemblyColdStartFigures, AssemblyFunctionFigures } from '#test/bench/assembly-cold-start';
import { type ClassName, endpointClasses, flowClasses } from '#test/bench/endpoint-classes';
import { sendClassRequest } from '#test/bench/http';
import { type SeededUser, seedRuntimeDirectory } from '#test/bench/seeded-directory';
import { percentile, round } from '#test/bench/stats';

/**
 * Long enough for what a request leaves to the queues' workers (a create's push, an answer's webhook) to be done
 * before the next cold start, which it would otherwise share the machine with.
 */
const settleMs = 250;

/**
 * benchAssemblyColdStarts's measurement: after one flow that warms the machine (the queues' workers, the files read),
 * `repetitions` flows for seeded users, each function's idle environments ended before its request, so that the
 * request starts one cold; the pool's stats give its init and the rest of the invocation.
 */
async function measureAssemblyColdStarts(repetitions: number): Promise<AssemblyColdStartFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-assembly-'));
  const runtime = await startAssemblyRuntime({ dataDir, port: 0, log: (line) => console.log(`  ${line}`) });
  let seeded: Awaited<ReturnType<typeof seedRuntimeDirectory>> | undefined;
  try {
    const { deployment, baseUrl } = runtime;
    const name = `Bench assembly cold starts ${Date.now()}`;
    seeded = await seedRuntimeDirectory(
      {
        baseUrl,
        organizationId: runtime.organization.organizationId,
        privateKeyPath: runtime.organization.privateKeyPath,
        dynamoEndpoint: runtime.engines.dynamoEndpoint,
        tableName: runtime.tableName,
      },
      name,
    );
    const { organization, organizationPem, directory, fetch } = seeded;
    await directory.growTo(repetitions + 1);
    let nextUser = 0;
    const classes = endpointClasses({
      organization,
      organizationPem,
      directory,
      nextUser: () => directory.users[nextUser++] as SeededUser,
      name,
    });
    const { routing } = await assemblyApi(deployment);
    const poolOf = (route: string) => {
      const served = routing.routes.find((each) => `${each.route.method} ${each.route.path}` === route);
      if (!served) throw new Error(`the assembly's API has no route ${route}`);
      return deployment.pool(served.target.functionName);
    };

    const runs = new Map<ClassName, { initMs: number; firstRequestMs: number }[]>();
    for (let flow = 0; flow <= repetitions; flow++) {
      for (const each of flowClasses) {
        const endpoint = classes[each];
        const request = await endpoint.next();
        const pool = await poolOf(endpoint.route);
        if (flow > 0) await pool.endIdleEnvironments();
        await sleep(settleMs);
        await sendClassRequest(fetch, baseUrl, endpoint, request);
        if (flow === 0) continue;
        const stats = pool.lastInvocation;
        if (!stats?.coldStart || stats.initMs === undefined)
          throw new Error(`${endpoint.route} did not start cold`);
        runs.set(each, [
          ...(runs.get(each) ?? []),
          { initMs: stats.initMs, firstRequestMs: stats.durationMs - stats.initMs },
        ]);
      }
    }

    const median = (values: number[]) => round(percentile(values, 50), 1);
    const functions = await Promise.all(
      flowClasses.map(async (each): Promise<AssemblyFunctionFigures> => {
        const endpoint = classes[each];
        const { definition } = await poolOf(endpoint.route);
        const measured = runs.get(each) ?? [];
        const files = await filesOf(definition.codeDirectory);
        return {
          handler: httpRoutes.find((row) => `${row.method} ${row.path}` === endpoint.route)?.handler ?? each,
          route: endpoint.route,
          logicalId: definition.logicalId,
          traced: definition.tracing,
          status: endpoint.status,
          bundleBytes: files['index.mjs'] ?? 0,
          besideBytes: Object.fromEntries(
            Object.entries(files).filter(([file]) => file !== 'index.mjs' && file.endsWith('.mjs')),
          ),
          initMs: median(measured.map((run) => run.initMs)),
          firstRequestMs: median(measured.map((run) => run.firstRequestMs)),
          coldStartMs: median(measured.map((run) => run.initMs + run.firstRequestMs)),
        };
      }),
    );
    const bundles = await Promise.all(
      (await deployment.allFunctions()).map(async (each) => ({
        // CDK's logical ids end in a hash of the construct path.
        function: each.logicalId.replace(/[0-9A-F]{8}$/, ''),
        bytes: (await filesOf(each.codeDirectory))['index.mjs'],
      })),
    );
    return {
      repetitions,
      node: runtime.lambdaNode.version,
      runtimeClient: runtime.lambdaNode.clientName,
      notes: runtime.lambdaNode.notes,
      functions,
      // CDK's own functions (the custom resource's provider framework) ship no index.mjs.
      bundles: bundles.flatMap(({ function: name, bytes }) =>
        bytes === undefined ? [] : [{ function: name, bytes }],
      ),
    };
  } finally {
    seeded?.close();
    await runtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The size of each file of an asset folder, by name. */
async function filesOf(directory: string): Promise<Record<string, number>> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  const sizes = await Promise.all(
    files.map(async (file): Promise<[string, number]> => [
      file.name,
      (await stat(join(directory, file.name))).size,
    ]),
  );
  return Object.fromEntries(sizes);
}

// benchAssemblyColdStarts started this process, and reads the one message it sends.
process.send?.(await measureAssemblyColdStarts(Number(process.argv[2])));
