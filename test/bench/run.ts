import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startBenchEnvironment } from '#test/bench/environment';
import { benchHttp } from '#test/bench/http';
import { benchManagement } from '#test/bench/management';
import { benchPipeline } from '#test/bench/pipeline';

const help = `Usage: npm run bench [-- options]

Prints, and writes to bench-results/latest.json:
  - the signed-request pipeline in-process (POST /organization/v3/directories/list, a JWE body): server CPU per
    request, the same run's unavoidable crypto (RSA verify + JWE decrypt + JWE encrypt + RS512 sign), the CPU of
    the store client's round trips, and the ratios (target: ≤ 1.3);
  - the management API in-process: listing a directory's services when it has 1 000 (store round trips, Query
    pages, latency) and creating services one after another (throughput, round trips);
  - HTTP throughput and latency of the local runtime for signed GET /organization/v3/directories.

Options:
  --requests <n>        signed requests for the pipeline figures (default 1000)
  --services <n>        services in the listed directory (default 1000)
  --http-requests <n>   requests per HTTP run (default 2000)
  --profile             also write a V8 CPU profile of the pipeline's server phase to bench-results/pipeline.cpuprofile
  -h, --help            show this help`;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    services: { type: 'string', default: '1000' },
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
const environment = await startBenchEnvironment();
let pipeline;
let management;
try {
  pipeline = await benchPipeline(environment, Number(values.requests), {
    ...(values.profile ? { profilePath: 'bench-results/pipeline.cpuprofile' } : {}),
  });
  management = await benchManagement(environment, {
    services: Number(values.services),
    listRequests: 50,
    createRequests: 200,
  });
} finally {
  await environment.close();
}

console.log('\nSigned request with a body, in-process pipeline (store in another process)');
console.table({
  'server CPU ms/request': pipeline.serverCpuMsPerRequest,
  'unavoidable crypto ms/request': pipeline.cryptoCpuMsPerRequest,
  [`store client ms/request (${pipeline.storeRoundTripsPerRequest} round trips)`]:
    pipeline.storeClientCpuMsPerRequest,
  'ratio server / crypto': pipeline.ratioToCrypto,
  'ratio (server − store client) / crypto': pipeline.ratioToCryptoExcludingStoreClient,
  'pipeline CPU ms/request, store answers from memory': pipeline.pipelineCpuMsPerRequestWithoutStoreIo,
  'ratio pipeline / crypto (target ≤ 1.3)': pipeline.pipelineRatioToCrypto,
  'latency median ms': pipeline.latencyMs.median,
  'latency p99 ms': pipeline.latencyMs.p99,
});

console.log(`\nManagement API, in-process`);
console.table({
  [`list services of a directory with ${management.listServices.services}`]: {
    'store round trips': JSON.stringify(management.listServices.storeRoundTrips),
    'service Query pages': management.listServices.queryPages,
    'median ms': management.listServices.latencyMs.median,
    'p99 ms': management.listServices.latencyMs.p99,
    'CPU ms/request': management.listServices.serverCpuMsPerRequest,
  },
  'create a Directory Service': {
    'store round trips': JSON.stringify(management.createService.storeRoundTrips),
    'per second': management.createService.perSecond,
    'median ms': management.createService.latencyMs.median,
    'p99 ms': management.createService.latencyMs.p99,
    'CPU ms/request': management.createService.serverCpuMsPerRequest,
  },
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

const report = { date: new Date().toISOString(), node: process.version, pipeline, management, http };
await writeFile('bench-results/latest.json', `${JSON.stringify(report, null, 2)}\n`);
console.log('\nWritten to bench-results/latest.json');
