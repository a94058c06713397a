import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { benchAuthFlow } from '#test/bench/auth-flow';
import { startBenchEnvironment } from '#test/bench/environment';
import { benchHttp } from '#test/bench/http';
import { benchManagement } from '#test/bench/management';
import { benchPipeline } from '#test/bench/pipeline';
import { benchWebhooks } from '#test/bench/webhooks';

const help = `Usage: npm run bench [-- options]

Prints, and writes to bench-results/latest.json:
  - the signed-request pipeline in-process (POST /organization/v3/directories/list, a JWE body): server CPU per
    request, the same run's unavoidable crypto (RSA verify + JWE decrypt + JWE encrypt + RS512 sign), the CPU of
    the store client's round trips, and the ratios (target: ≤ 1.3);
  - the management API in-process: listing a directory's services when it has 1 000 (store round trips, Query
    pages, latency) and creating services one after another (throughput, round trips);
  - the authorization flow in-process, flow after flow for one user (the service asks, the device lists and answers,
    the service reads the answer): flows per second, latency per flow, the store round trips of each step and the
    commands they are (targets: create ≤ 5, answer ≤ 4, poll ≤ 3), and the unavoidable crypto's share of the
    server's CPU;
  - HTTP throughput and latency of the local runtime for signed GET /organization/v3/directories;
  - webhooks through the local runtime's queue and worker to a receiver that verifies and decrypts them: the latency
    from a device's answer to the webhook's arrival, and events delivered per second.

Options:
  --requests <n>        signed requests for the pipeline figures (default 1000)
  --services <n>        services in the listed directory (default 1000)
  --flows <n>           authorization flows, one after another (default 200)
  --http-requests <n>   requests per HTTP run (default 2000)
  --webhook-flows <n>   answers whose webhooks are timed (default 100)
  --webhook-events <n>  events queued at once for the throughput figure (default 500)
  --profile             also write a V8 CPU profile of the pipeline's server phase to bench-results/pipeline.cpuprofile
  -h, --help            show this help`;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000' },
    services: { type: 'string', default: '1000' },
    flows: { type: 'string', default: '200' },
    'http-requests': { type: 'string', default: '2000' },
    'webhook-flows': { type: 'string', default: '100' },
    'webhook-events': { type: 'string', default: '500' },
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
let authFlow;
try {
  pipeline = await benchPipeline(environment, Number(values.requests), {
    ...(values.profile ? { profilePath: 'bench-results/pipeline.cpuprofile' } : {}),
  });
  management = await benchManagement(environment, {
    services: Number(values.services),
    listRequests: 50,
    createRequests: 200,
  });
  authFlow = await benchAuthFlow(environment, Number(values.flows));
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

console.log(`\nAuthorization flow, in-process, ${authFlow.flows} flows one after another for one user`);
console.table({
  'flows/s (the 4 handlers)': authFlow.perSecond,
  "flows/s end to end (with the service's and the device's own crypto, in this process)":
    authFlow.perSecondEndToEnd,
  'handler ms per flow, median': authFlow.latencyMs.median,
  'handler ms per flow, p99': authFlow.latencyMs.p99,
  'server CPU ms/flow': authFlow.serverCpuMsPerFlow,
  'unavoidable crypto ms/flow': authFlow.cryptoCpuMsPerFlow,
  'crypto share of server CPU %': authFlow.cryptoSharePercent,
});
console.table(
  Object.fromEntries(
    Object.entries(authFlow.steps).map(([step, figures]) => [
      step,
      {
        'store round trips': figures.storeRoundTrips,
        target: figures.target === null ? '—' : `≤ ${figures.target}`,
        commands: JSON.stringify(figures.storeCommands),
        queue: JSON.stringify(figures.queueCommands),
        'median ms': figures.latencyMs?.median ?? '—',
        'CPU ms': figures.serverCpuMsPerRequest ?? '—',
      },
    ]),
  ),
);
const overTarget = Object.entries(authFlow.steps).filter(
  ([, figures]) => figures.target !== null && figures.storeRoundTrips > figures.target,
);
for (const [step, figures] of overTarget)
  console.log(
    `  ${step}: ${figures.storeRoundTrips} store round trips, over its target of ${figures.target}`,
  );

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

const webhooks = await benchWebhooks(Number(values['webhook-flows']), Number(values['webhook-events']));
console.log('\nWebhooks through the local runtime: queue, poller, worker, a verifying receiver');
console.table({
  [`answer → webhook arrival, median ms (${webhooks.flows} answers)`]: webhooks.answerToWebhookMs.median,
  'answer → webhook arrival, p99 ms': webhooks.answerToWebhookMs.p99,
  [`events delivered per second (${webhooks.events} queued at once)`]: webhooks.deliveredPerSecond,
});

const report = {
  date: new Date().toISOString(),
  node: process.version,
  pipeline,
  management,
  authFlow,
  http,
  webhooks,
};
await writeFile('bench-results/latest.json', `${JSON.stringify(report, null, 2)}\n`);
console.log('\nWritten to bench-results/latest.json');
