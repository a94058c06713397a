import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { benchHttp } from '#test/bench/http';
import { benchPipeline } from '#test/bench/pipeline';

const help = `Usage: npm run bench [-- --requests <n> --http-requests <n> --profile]

Prints, and writes to bench-results/latest.json:
  - the signed-request pipeline in-process (POST /organization/v3/directories/list, a JWE body): server CPU per
    request, the same run's unavoidable crypto (RSA verify + JWE decrypt + JWE encrypt + RS512 sign), the CPU of
    the store client's round trips, and the ratios (target: ≤ 1.3);
  - HTTP throughput and latency of the local runtime for signed GET /organization/v3/directories.
With --profile, also writes a V8 CPU profile of the pipeline's server phase to bench-results/pipeline.cpuprofile.`;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    'http-requests': { type: 'string', default: '2000' },
    profile: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(help);
  process.exit(0);
}

process.env.NODE_NO_WARNINGS = '1';
await mkdir('bench-results', { recursive: true });
const pipeline = await benchPipeline(Number(values.requests), {
  ...(values.profile ? { profilePath: 'bench-results/pipeline.cpuprofile' } : {}),
});
console.log('\nSigned request with a body, in-process pipeline (store in another process)');
console.table({
  'server CPU ms/request': pipeline.serverCpuMsPerRequest,
  'unavoidable crypto ms/request': pipeline.cryptoCpuMsPerRequest,
  'store client ms/request (2 round trips)': pipeline.storeClientCpuMsPerRequest,
  'ratio server / crypto': pipeline.ratioToCrypto,
  'ratio (server − store client) / crypto': pipeline.ratioToCryptoExcludingStoreClient,
  'pipeline CPU ms/request, store answers from memory': pipeline.pipelineCpuMsPerRequestWithoutStoreIo,
  'ratio pipeline / crypto (target ≤ 1.3)': pipeline.pipelineRatioToCrypto,
  'latency median ms': pipeline.latencyMs.median,
  'latency p99 ms': pipeline.latencyMs.p99,
});

const http = await benchHttp([1, 8], Number(values['http-requests']));
console.log('\nLocal runtime over HTTP: signed GET /organization/v3/directories');
console.table(
  http.map((figures) => ({
    connections: figures.connections,
    'requests/s': figures.requestsPerSecond,
    'median ms': figures.latencyMs.median,
    'p99 ms': figures.latencyMs.p99,
    'non-2xx': figures.non2xx,
  })),
);

const report = { date: new Date().toISOString(), node: process.version, pipeline, http };
await writeFile('bench-results/latest.json', `${JSON.stringify(report, null, 2)}\n`);
console.log('\nWritten to bench-results/latest.json');
