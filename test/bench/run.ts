import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  type AssemblyColdStartFigures,
  assemblyColdStartRows,
  benchAssemblyColdStarts,
} from '#test/bench/assembly-cold-start';
import { benchAuthFlow } from '#test/bench/auth-flow';
import { benchBaseline, type ClassSide } from '#test/bench/baseline';
import { awsModel, capacityFigures } from '#test/bench/capacity';
import { benchCliCalls } from '#test/bench/cli-calls';
import { benchColdStarts, bundleTargetKb, coldStartTargetMs } from '#test/bench/cold-start';
import { flowClasses } from '#test/bench/endpoint-classes';
import type { EndpointCostFigures } from '#test/bench/endpoint-costs';
import { startBenchEnvironment } from '#test/bench/environment';
import { benchHttp } from '#test/bench/http';
import { benchKeySizes } from '#test/bench/key-sizes';
import { benchKmsSigning, kmsRsaRequestsPerSecond } from '#test/bench/kms-signing';
import { benchManagement } from '#test/bench/management';
import { benchPipeline } from '#test/bench/pipeline';
import { benchPushCreateCost, benchPushes, createToPushTargetMs } from '#test/bench/pushes';
import { benchScaling } from '#test/bench/scaling';
import {
  benchConsoleScreen,
  consoleFirstScreenTargetMs,
  consoleJavascriptGzipTargetKb,
} from '#test/bench/console-screen';
import { benchRefusals } from '#test/bench/refusals';
import { depthChecks } from '#test/bench/round-trip-ceilings';
import { round } from '#test/bench/stats';
import { benchStoreClient, storeClientTargetMs } from '#test/bench/store-client';
import { benchWeb, firstScreenTargetMs, javascriptGzipTargetKb } from '#test/bench/web';
import { benchWebhooks } from '#test/bench/webhooks';

// In the order they run: those in this process first, up to `http`.
const sections = [
  'cold-start',
  'scaling',
  'pipeline',
  'store-client',
  'refusals',
  'management',
  'auth-flow',
  'http',
  'key-sizes',
  'kms',
  'webhooks',
  'pushes',
  'clis',
  'web',
  'console',
] as const;
type Section = (typeof sections)[number];

/** Each count's full value, and its value with --quick. */
const counts = {
  'class-requests': { full: 200, quick: 10 },
  users: { full: 100_000, quick: 2_000 },
  services: { full: 1_000, quick: 100 },
  requests: { full: 1_000, quick: 100 },
  'store-client-sends': { full: 300, quick: 30 },
  'refusal-requests': { full: 300, quick: 30 },
  flows: { full: 200, quick: 20 },
  'cold-starts': { full: 3, quick: 1 },
  'http-requests': { full: 300, quick: 32 },
  'key-size-requests': { full: 300, quick: 30 },
  'kms-signatures': { full: 300, quick: 30 },
  'webhook-flows': { full: 100, quick: 10 },
  'webhook-events': { full: 500, quick: 50 },
  'push-flows': { full: 100, quick: 10 },
  'push-events': { full: 500, quick: 50 },
  'cli-calls': { full: 10, quick: 3 },
  'web-loads': { full: 20, quick: 5 },
  'console-loads': { full: 20, quick: 5 },
} as const;
type Count = keyof typeof counts;

const help = `Usage: npm run bench [-- options]

Prints tables, and writes every figure to bench-results/latest.json (a --quick or --only run to
bench-results/quick.json or bench-results/only-<sections>.json, so the full run's figures stay). In order:
  cold-start  Every function bundled by esbuild as the stack bundles it: bundle size (target ≤ 500 KB), and a
              fresh node process that imports the bundle and serves one request, --cold-starts times each
              (target ≤ 150 ms for import + first request); with --quick only the endpoint classes' functions
              start, every bundle is still sized. Then what cdk deploy ships: the cloud assembly run as
              npm start -- --assembly runs it, in a process of its own (synthesized first when its sources
              changed, a few minutes): the login path's functions (create, device list, answer, poll), each
              started --cold-starts times in a fresh execution environment of Lambda's Node 24 with
              aws-lambda-ric, traced, and sent one request over HTTP: Lambda's Init Duration (Node's boot, the
              runtime client, the bundle's import), the first request, and both (target ≤ 150 ms each), beside
              the same function's esbuild bundle above; each one's index.mjs and the modules beside it, and
              every function's index.mjs in the assembly (target ≤ 500 KB).
  scaling     The endpoint classes in-process, through their real handlers, the store in another process: public
              (ping, API key), signed read (a directory by id), signed write (a new directory), create auth,
              device list, answer, poll. Per class: its round trips, store + queue, and their depth: the longest
              chain of them waited for one after another, shown as (store alone; store and queue sends) (one
              sent while another is in flight adds to the total, not to the depth; store depth targets: create
              auth ≤ 3, answer ≤ 3, device list ≤ 2, poll ≤ 2, signed read ≤ 2); server CPU per request, the
              same requests' unavoidable crypto (RSA verify + JWE decrypt + JWE encrypt + RS512 sign, and a
              create's push package) and their ratio (target ≤ 1.3), with the store's answers replayed from memory too, and
              median and p99 latency; approvals (create, device list, answer, poll) per second. The latency
              model: the same classes again with every store round trip delayed by --store-delay-ms and every
              queue send by --queue-delay-ms, their median and p99 latency, and an estimate of the median in AWS
              (that median plus the CPU stretched to a function's share of a vCPU). Capacity: an approval's store
              reads, writes and function time in AWS (modelled), and the approvals per second at which each AWS
              default binds (docs/deploy.md, Capacity). Then the same on one directory grown to --users users
              (written straight into the store) and to --services services, with each figure's ratio to the
              1-user one: it should stay flat.
  pipeline    One signed request with a body (POST /organization/v3/directories/list) in-process: server CPU,
              the unavoidable crypto, the store client's CPU, the ratios, latency, requests per second.
  store-client
              The store client's own CPU per round trip (target ≤ 0.5 ms): Get, BatchGet, Query, a conditional
              Put and an Update, --store-client-sends times each, against the store in another process, with
              today's setup (lib-dynamodb's client, the SDK's full middleware stack), the store module's,
              candidate setups of the SDK, two clients without it (@aws-lite/client, aws4 signing over
              node:http) and the floor of node:http alone, side by side and interleaved, each one's answers first
              checked against the store module's; each setup's ratio to today's, and the marshalling's cost alone.
  refusals    What refusing a signed route costs, in-process, next to a successful signed read: server CPU per
              request and its ratio to the read, and store round trips, for a JWT signed by a key the issuer does
              not have, a real key's JWT with a changed signature, a header that is not a JWT, an oversized one,
              and a request without the origin secret behind CloudFront; and the RS512 signature every signed
              answer (a 401 included) carries.
  management  Listing a directory's --services services, and creating services one after another.
  auth-flow   Approvals flow after flow for one user with the reference authenticator: flows per second, each
              step's round trips (store + queue), their depth against its target as in scaling (each round trip
              delayed as in the latency model while counted) and its commands, the crypto's share of the server's
              CPU.
  http        The endpoint classes against the local runtime (npm start) in its own process, driven by
              autocannon at each of --connections concurrent connections: requests per second, median and p99
              latency, with the ratio of requests per second to one connection's.
  key-sizes   API keys of 2048, 3072 and 4096 bits: the pipeline bench in a fresh process (--key-size-requests
              requests) and, except with --quick, the signed read over HTTP at 8 connections (--http-requests),
              with ratios to 2048.
  kms         The API's response signature (RS512) made in the function with the key from its secret, as
              today, and by AWS KMS, modelled: the real KMS client against a stand-in in another process that
              checks the request, signs, and answers after --kms-round-trip-ms; per key size, the function's CPU
              and each signature's median and p99 time (--kms-signatures each), KMS's price per million and what
              its shared RSA quota leaves of the API's throughput.
  webhooks    Webhooks through the local runtime's queue and worker to a receiver that verifies and decrypts
              them: latency from a device's answer to the webhook's arrival, and events delivered per second.
  pushes      Web Push through the local runtime's push queue and worker to a receiver that checks each push's
              VAPID JWT and decrypts it as a browser would. From a create's 201 to its prompt's arrival (median
              and p99, target median ≤ 150 ms), --push-flows flows for one user, each cancelled and its "ended"
              push awaited before the next; the same creates' HTTP latency beside a user whose device has no
              channel. Pushes per second by the one worker: --push-events users with a pending request each,
              whose prompt events are queued at once. And what a push adds to a create, in-process through the
              handler: CPU and latency with the push queue set and unset, against one queue send of the same
              batch, as a ratio (about 1: the push costs the create one send).
  clis        Each CLI as a user runs it in a second terminal, against the local runtime in its own process found
              from its record: call --help, a signed call, app policy, authenticator pending and admin org list,
              --cli-calls times each; wall time per call through npm run (target ≤ 1000 ms) and of node running
              the bundle alone, and the time esbuild takes to build the bundles.
  web         The web authenticator opened from a QR URL in headless Chromium on a throttled phone (CPU 4× slower,
              150 ms latency, 1.6 Mbps down, 750 Kbps up: Lighthouse's slow 4G), cold each time (a fresh browser
              context), --web-loads times, against the local runtime in its own process: median and p95 of the time
              from the navigation's start to the first screen drawn (target ≤ 1000 ms), and its JavaScript gzipped
              (target ≤ 150 KB).
  console     The console opened in headless Chromium on a throttled laptop (CPU 2× slower, 40 ms latency, 10 Mbps
              both ways: Lighthouse's desktop network), cold each time, --console-loads times, against the local
              runtime in its own process: median and p95 of the time from the navigation's start to its sign-in
              screen drawn (target ≤ 1500 ms), and its JavaScript gzipped with every section (target ≤ 150 KB).
Then every budget the project sets (README, 'Performance and reliability'), met or missed.

Options (full value / --quick value):
  --quick                    small counts: the whole bench in well under a minute, for a smoke run
  --only <sections>          comma-separated sections to run (default: all of them)
  --class-requests <n>       requests per endpoint class at each scale point, in-process (200 / 10)
  --users <n>                users in the grown directory (100000 / 2000)
  --services <n>             services in the grown directory and in the management bench's (1000 / 100)
  --requests <n>             signed requests for the pipeline figures (1000 / 100)
  --store-client-sends <n>   sends per command and client setup in the store-client section (300 / 30)
  --refusal-requests <n>     requests per kind in the refusals section (300 / 30)
  --flows <n>                authorization flows, one after another (200 / 20)
  --cold-starts <n>          fresh processes per bundle, and fresh execution environments per login function in
                             the assembly (3 / 1)
  --http-requests <n>        requests per endpoint class and connection count over HTTP, at least one per
                             connection (300 / 32)
  --connections <list>       concurrent connections of the HTTP runs (default 1,8,64)
  --key-size-requests <n>    pipeline requests per API key size (300 / 30)
  --kms-signatures <n>       signatures per key size and way of signing (300 / 30)
  --kms-round-trip-ms <ms>   the modelled KMS Sign round trip from a function in the same region (default 15)
  --webhook-flows <n>        answers whose webhooks are timed (100 / 10)
  --webhook-events <n>       events queued at once for the throughput figure (500 / 50)
  --push-flows <n>           creates whose pushes are timed, and creates per case of the create's cost (100 / 10)
  --push-events <n>          users whose prompt events are queued at once for the throughput figure (500 / 50)
  --cli-calls <n>            calls per CLI command, through npm and without it (10 / 3)
  --web-loads <n>            cold loads of the web authenticator on the throttled phone (20 / 5)
  --console-loads <n>        cold loads of the console on the throttled laptop (20 / 5)
  --profile                  also write V8 CPU profiles of the pipeline's server phase and of each endpoint
                             class with the store's answers from memory to bench-results/pipeline.cpuprofile
                             and bench-results/class-<class>.cpuprofile
  --store-delay-ms <ms>      the latency model's wait per store round trip, an in-region DynamoDB call (default 5)
  --queue-delay-ms <ms>      the latency model's wait per queue send, an in-region SQS SendMessage (default 10).
                             The scaling section also counts round trips with these waits, so that round trips
                             sent together overlap however fast the local store answers; 0 for both skips the
                             model and counts without waits
  --check-round-trips        exit 1 if an endpoint class's round-trip depth (store and queue sends) exceeds its ceiling in
                             test/bench/round-trip-ceilings.ts (needs the scaling section). The ceilings are today's
                             depths, not the targets: CI runs this so that a change that adds a round trip fails; a
                             change that removes one lowers its ceiling, toward the targets in the Budgets table.
                             CPU and timing budgets never fail a run (shared machines make them noisy)
  --baseline <commit>        before and after in one run: the scaling section's first point (each class's round
                             trips, server CPU, crypto and their ratio, median latency, the latency model's
                             median; approvals per second) of <commit> beside this working tree's. Each side runs
                             its own bench (--only scaling with this run's --class-requests, --store-delay-ms,
                             --queue-delay-ms and --quick, --users 1 --services 2) in a process of its own, the
                             commit in a temporary git worktree with this tree's node_modules (refused if its
                             package-lock.json differs; the worktree is removed afterwards), twice each in the
                             order before, after, after, before; per side the better of its two runs (noise only
                             adds), and the ratio after / before (for approvals per second, × faster). Alone it
                             runs nothing else and writes bench-results/baseline-<commit>.json (with --quick,
                             quick.json); with --only, those sections run after it. The working tree's runs leave
                             its bench-results/only-scaling.json (quick.json) as --only scaling would
  -h, --help                 show this help`;

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    connections: { type: 'string' },
    profile: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    'class-requests': { type: 'string' },
    users: { type: 'string' },
    services: { type: 'string' },
    requests: { type: 'string' },
    'store-client-sends': { type: 'string' },
    'refusal-requests': { type: 'string' },
    flows: { type: 'string' },
    'cold-starts': { type: 'string' },
    'http-requests': { type: 'string' },
    'key-size-requests': { type: 'string' },
    'kms-signatures': { type: 'string' },
    'kms-round-trip-ms': { type: 'string' },
    'webhook-flows': { type: 'string' },
    'webhook-events': { type: 'string' },
    'push-flows': { type: 'string' },
    'push-events': { type: 'string' },
    'cli-calls': { type: 'string' },
    'web-loads': { type: 'string' },
    'console-loads': { type: 'string' },
    'store-delay-ms': { type: 'string' },
    'queue-delay-ms': { type: 'string' },
    'check-round-trips': { type: 'boolean' },
    baseline: { type: 'string' },
  },
});
if (values.help) {
  console.log(help);
  process.exit(0);
}
const count = (name: Count): number => {
  const given = values[name];
  const value = given === undefined ? counts[name][values.quick ? 'quick' : 'full'] : Number(given);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive integer`);
  return value;
};
const connections = (values.connections ?? '1,8,64').split(',').map(Number);
if (connections.some((each) => !Number.isInteger(each) || each < 1))
  fail('--connections must be positive integers separated by commas');
// A before-and-after run is usually wanted alone: its own runs are the scaling section, twice on each side.
const only = values.only?.split(',') ?? (values.baseline === undefined ? [...sections] : []);
for (const name of only) if (!(sections as readonly string[]).includes(name)) fail(`unknown section ${name}`);
const runs = (section: Section) => only.includes(section);
if (values['check-round-trips'] && !runs('scaling')) fail('--check-round-trips needs the scaling section');
const delayMs = (name: 'store-delay-ms' | 'queue-delay-ms', byDefault: number) => {
  const value = Number(values[name] ?? byDefault);
  if (!Number.isFinite(value) || value < 0) fail(`--${name} must be a number of ms ≥ 0`);
  return value;
};
const latencyModel = {
  storeMs: delayMs('store-delay-ms', awsModel.storeRoundTripMs),
  queueMs: delayMs('queue-delay-ms', awsModel.queueSendMs),
};

function fail(message: string): never {
  console.error(`${message}\n\n${help}`);
  process.exit(2);
}

/** A figure and its ratio to a reference, as `8.27 (×1.05)`. */
const vs = (value: number, reference: number | undefined, digits = 2) =>
  reference === undefined || reference === 0 || value === reference
    ? `${round(value, digits)}`
    : `${round(value, digits)} (×${round(value / reference, 2)})`;
const target = (value: number | null, most: number | null) =>
  most === null ? `${value}` : `${value} (≤ ${most})`;
/** A class's round trips as `4 + 1 queue (3; 4)`: store, queue, and in brackets the store's depth, then the depth of both. */
const roundTrips = (
  each: Pick<
    EndpointCostFigures,
    'storeRoundTrips' | 'queueCommands' | 'roundTripDepth' | 'storeRoundTripDepth'
  >,
) =>
  `${each.storeRoundTrips}${queued(each.queueCommands)} (${each.storeRoundTripDepth}; ${each.roundTripDepth})`;
const queued = (commands: Record<string, number>) => {
  const sends = Object.values(commands).reduce((sum, calls) => sum + calls, 0);
  return sends > 0 ? ` + ${sends} queue` : '';
};
/** A modelled latency with the CPU stretched as in a function; local CPU is already in the latency once. */
const inAws = (modelledMs: number | undefined, cpuMs: number) =>
  modelledMs === undefined ? '—' : round(modelledMs + cpuMs * (awsModel.cpuStretch - 1), 1);
const sectionSeconds: Partial<Record<Section, number>> = {};
/** A section's part that ran earlier, beside the in-process sections, in seconds. */
const earlierSeconds: Partial<Record<Section, number>> = {};
/** Runs a section if it was asked for, and says how long it took. */
async function section(name: Section, run: () => Promise<void>) {
  if (!runs(name)) return;
  const started = performance.now();
  await run();
  sectionSeconds[name] = round((performance.now() - started) / 1000 + (earlierSeconds[name] ?? 0), 1);
  console.log(`  (${name}: ${sectionSeconds[name]} s)`);
}

process.env.NODE_NO_WARNINGS = '1';
await mkdir('bench-results', { recursive: true });
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  node: process.version,
  quick: values.quick ?? false,
  counts: Object.fromEntries(Object.keys(counts).map((name) => [name, count(name as Count)])),
  connections,
};
const benchStarted = performance.now();
// Before anything of this run's own: the two sides' processes then have the machine to themselves.
if (values.baseline !== undefined) await beforeAndAfter(values.baseline);
let pushCreateCost: Awaited<ReturnType<typeof benchPushCreateCost>> | undefined;

// The in-process sections, every one before `http`, share one environment (its store client is made once per process).
const inProcess: readonly Section[] = sections.slice(0, sections.indexOf('http'));
// The pushes section's in-process figure (what a push adds to a create) uses it too.
if (inProcess.some(runs) || runs('pushes')) {
  const environment = await startBenchEnvironment();
  try {
    await section('cold-start', async () => {
      const coldStarts = await benchColdStarts(environment, {
        repetitions: count('cold-starts'),
        outdir: '.tmp/bench-bundles',
        handlers: values.quick ? 'endpoint classes' : 'all',
      });
      report.coldStarts = coldStarts;
      console.log(
        `\nCold start per function bundle: a fresh node process (Node ${process.version}, untraced) imports it and ` +
          `serves one request (median of ${coldStarts.repetitions}; targets ≤ ${coldStartTargetMs} ms and ≤ ${bundleTargetKb} KB)`,
      );
      console.table(
        Object.fromEntries(
          coldStarts.bundles.map((bundle) => [
            bundle.handler,
            {
              KB: round(bundle.bundleBytes / 1024, 1),
              'first request': bundle.request ?? '—',
              status: bundle.status ?? '—',
              'import ms': bundle.importMs ?? '—',
              'first request ms': bundle.firstRequestMs ?? '—',
              'import + request ms': bundle.coldStartMs ?? '—',
              'since process start ms': bundle.sinceProcessStartMs ?? '—',
            },
          ]),
        ),
      );
      const timed = coldStarts.bundles.flatMap((bundle) =>
        bundle.coldStartMs === null ? [] : [bundle.coldStartMs],
      );
      const sizes = coldStarts.bundles.map((bundle) => bundle.bundleBytes / 1024);
      console.log(
        `  import + first request: median ${round(median(timed), 1)} ms, max ${round(Math.max(...timed), 1)} ms, ` +
          `${timed.filter((ms) => ms > coldStartTargetMs).length} of ${timed.length} over ${coldStartTargetMs} ms; ` +
          `importing the DynamoDB clients from node_modules instead (the runtime's SDK): ${coldStarts.awsSdkImportMs} ms`,
      );
      console.log(
        `  bundles: median ${round(median(sizes), 1)} KB, max ${round(Math.max(...sizes), 1)} KB, ` +
          `${sizes.filter((kb) => kb > bundleTargetKb).length} of ${sizes.length} over ${bundleTargetKb} KB`,
      );

      const assembly = await benchAssemblyColdStarts(count('cold-starts'));
      report.assemblyColdStarts = assembly;
      console.log(
        `\nCold start of the login path in the cloud assembly (the shipped bundles on Node ${assembly.node}, ` +
          `${assembly.runtimeClient}, traced as its TracingConfig says, reached over HTTP): each request in a fresh execution environment, ` +
          `median of ${assembly.repetitions}; init is Lambda's Init Duration (Node's boot, the runtime client, the ` +
          `import). Beside it, the same function's esbuild bundle above in a fresh node process (Node ${process.version}, untraced)`,
      );
      for (const note of assembly.notes) console.log(`  ${note}`);
      console.table(assemblyColdStartRows(assembly, coldStarts));
      const over = assembly.functions.filter((each) => each.coldStartMs > coldStartTargetMs);
      console.log(
        `  init + first request ≤ ${coldStartTargetMs} ms each: ${over.length === 0 ? 'met' : 'missed'}, ` +
          `${over.length} of ${assembly.functions.length} over (${assembly.functions.map((each) => `${each.coldStartMs} ms`).join(', ')})`,
      );
      const shipped = assembly.bundles.map((bundle) => bundle.bytes / 1024);
      console.log(
        `  index.mjs of the assembly's ${shipped.length} functions: median ${round(median(shipped), 1)} KB, ` +
          `max ${round(Math.max(...shipped), 1)} KB, ${shipped.filter((kb) => kb > bundleTargetKb).length} over ${bundleTargetKb} KB`,
      );
    });

    await section('scaling', async () => {
      const points = await benchScaling(environment, {
        users: count('users'),
        services: count('services'),
        requests: count('class-requests'),
        warmup: values.quick ? 3 : 10,
        ...(values.profile ? { profileDir: 'bench-results' } : {}),
        ...(latencyModel.storeMs + latencyModel.queueMs > 0 ? { latencyModel } : {}),
      });
      report.scaling = points;
      const [base, ...grown] = points;
      if (!base) throw new Error('no scale point');
      console.log(
        `\nEndpoint classes, in-process (store in another process), ${plural(base.users, 'user')} and ` +
          `${plural(base.services, 'service')}, ` +
          `${count('class-requests')} requests each`,
      );
      console.table(
        Object.fromEntries(
          base.classes.map((each) => [
            each.name,
            {
              route: each.route,
              'round trips (depth)': roundTrips(each),
              'depth target': each.roundTripTarget === null ? '—' : `≤ ${each.roundTripTarget}`,
              'server CPU ms': each.serverCpuMsPerRequest,
              'crypto ms': each.cryptoCpuMsPerRequest,
              'server / crypto': each.ratioToCrypto ?? '—',
              'CPU ms, store from memory': each.cpuMsPerRequestWithoutIo ?? '—',
              'that / crypto (≤ 1.3)': each.ratioWithoutIoToCrypto ?? '—',
              'median ms': each.latencyMs.median,
              'p99 ms': each.latencyMs.p99,
            },
          ]),
        ),
      );
      console.log(
        `  approvals (create, device list, answer, poll; handlers only): ${base.flow.perSecond}/s, ` +
          `median ${base.flow.latencyMs.median} ms, p99 ${base.flow.latencyMs.p99} ms`,
      );
      if (base.latencyModel) {
        console.log(
          `\nLatency model: every store round trip waits ${base.latencyModel.storeMs} ms and every queue send ` +
            `${base.latencyModel.queueMs} ms before it is sent, ${count('class-requests')} requests each; in AWS: ` +
            `that median + the server CPU × ${round(awsModel.cpuStretch - 1, 2)} (a function's share of a vCPU)`,
        );
        console.table(
          Object.fromEntries(
            base.classes.map((each) => [
              each.name,
              {
                'round trips (depth)': roundTrips(each),
                'median ms, local': each.latencyMs.median,
                'median ms, modelled': each.modelledLatencyMs?.median ?? '—',
                'p99 ms, modelled': each.modelledLatencyMs?.p99 ?? '—',
                'median ms in AWS, est.': inAws(each.modelledLatencyMs?.median, each.serverCpuMsPerRequest),
              },
            ]),
          ),
        );
        const flowCpu = base.classes
          .filter((each) => (flowClasses as readonly string[]).includes(each.name))
          .reduce((sum, each) => sum + each.serverCpuMsPerRequest, 0);
        console.log(
          `  approvals (create, device list, answer, poll; handlers only), modelled: median ` +
            `${base.flow.modelledLatencyMs?.median} ms, p99 ${base.flow.modelledLatencyMs?.p99} ms; ` +
            `in AWS, est. ${inAws(base.flow.modelledLatencyMs?.median, flowCpu)} ms`,
        );
      }
      const capacity = capacityFigures(base.classes);
      report.capacity = capacity;
      const { perApproval } = capacity;
      console.log(
        `\nCapacity: an approval is ${perApproval.requests} requests, at least ${perApproval.reads} store read units and ` +
          `${perApproval.writes} write units (a transaction's items cost two each), and about ` +
          `${round(perApproval.functionSeconds * 1000, 0)} ms of function time in AWS (CPU × ${awsModel.cpuStretch}, ` +
          `${awsModel.storeRoundTripMs} ms per store round trip and ${awsModel.queueSendMs} ms per queue send on ` +
          `the critical path); approvals per second at which each AWS default binds:`,
      );
      console.table(
        Object.fromEntries(
          Object.entries(capacity.approvalsPerSecondAt).map(([limit, approvals]) => [
            limit,
            { 'approvals/s': approvals, 'requests/s': approvals * perApproval.requests },
          ]),
        ),
      );
      const commands = (each: EndpointCostFigures) =>
        JSON.stringify({ ...each.storeCommands, ...each.queueCommands });
      console.log('  commands:');
      for (const each of base.classes) console.log(`    ${each.name}: ${commands(each)}`);

      console.log(
        `\nScaling: the same directory grown (u users, s services), ratios to ${plural(base.users, 'user')} ` +
          '(should stay flat)',
      );
      for (const point of grown) {
        console.log(
          `  ${plural(point.users, 'user')}, ${plural(point.services, 'service')}: seeded in ${point.seedSeconds} s` +
            (point.seedItemsPerSecond === null ? '' : ` (${point.seedItemsPerSecond} items/s)`),
        );
      }
      const label = (point: (typeof points)[number]) => `${point.users} u, ${point.services} s`;
      const growthRow = (index: number): Record<string, string> => {
        const reference = base.classes[index] as EndpointCostFigures;
        const row: Record<string, string> = {
          'round trips (depth)': points
            .map((point) => roundTrips(point.classes[index] as EndpointCostFigures))
            .join(' · '),
        };
        for (const point of points) {
          const figures = point.classes[index] as EndpointCostFigures;
          row[`CPU ms, ${label(point)}`] = vs(figures.serverCpuMsPerRequest, reference.serverCpuMsPerRequest);
          row[`median ms, ${label(point)}`] = vs(figures.latencyMs.median, reference.latencyMs.median);
        }
        return row;
      };
      console.table(Object.fromEntries(base.classes.map((each, index) => [each.name, growthRow(index)])));
      console.log(
        `  approvals per second: ${points.map((point) => `${vs(point.flow.perSecond, base.flow.perSecond, 0)} with ${label(point)}`).join(', ')}`,
      );
    });

    await section('pipeline', async () => {
      const pipeline = await benchPipeline(environment, count('requests'), {
        ...(values.profile ? { profilePath: 'bench-results/pipeline.cpuprofile' } : {}),
      });
      report.pipeline = pipeline;
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
        'requests/s, one after another': pipeline.requestsPerSecond,
      });
    });

    await section('store-client', async () => {
      const storeClient = await benchStoreClient(count('store-client-sends'));
      report.storeClient = storeClient;
      console.log(
        `\nStore client CPU per round trip, ms, ${storeClient.sendsPerCommand} sends of each command per setup ` +
          `(target ≤ ${storeClientTargetMs}); marshalling alone: ${storeClient.marshallingCpuMsPerRoundTrip} ms`,
      );
      console.table(
        Object.fromEntries(
          storeClient.setups.map((each) => [
            each.name,
            { ...each.cpuMsPerRoundTrip, '/ today': each.ratioToToday },
          ]),
        ),
      );
    });

    await section('refusals', async () => {
      const refusals = await benchRefusals(environment, count('refusal-requests'));
      report.refusals = refusals;
      console.log(
        `\nRefusals of a signed route (GET /organization/v3/directories), in-process, ${refusals.requests} each`,
      );
      console.table(
        Object.fromEntries(
          Object.entries(refusals.kinds).map(([kind, figures]) => [
            kind,
            {
              answer: `${figures.status}${figures.errorCode ? ` ${figures.errorCode}` : ''}`,
              'server CPU ms/request': figures.serverCpuMsPerRequest,
              'ratio to the signed read': figures.ratioToSignedRead,
              'store round trips': figures.storeRoundTrips,
            },
          ]),
        ),
      );
      console.log(
        `  one RS512 response signature (every signed answer, a 401 too): ${refusals.responseSignatureCpuMs} ms`,
      );
    });

    await section('management', async () => {
      const management = await benchManagement(environment, {
        services: count('services'),
        listRequests: values.quick ? 10 : 50,
        createRequests: values.quick ? 20 : 200,
      });
      report.management = management;
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
    });

    await section('auth-flow', async () => {
      const authFlow = await benchAuthFlow(environment, count('flows'));
      report.authFlow = authFlow;
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
              'round trips (depth)': roundTrips(figures),
              'depth target': figures.target === null ? '—' : `≤ ${figures.target}`,
              commands: JSON.stringify(figures.storeCommands),
              queue: JSON.stringify(figures.queueCommands),
              'median ms': figures.latencyMs?.median ?? '—',
              'CPU ms': figures.serverCpuMsPerRequest ?? '—',
            },
          ]),
        ),
      );
    });

    if (runs('pushes')) {
      const started = performance.now();
      pushCreateCost = await benchPushCreateCost(environment, count('push-flows'));
      earlierSeconds.pushes = (performance.now() - started) / 1000;
    }
  } finally {
    await environment.close();
  }
}

await section('http', async () => {
  const http = await benchHttp({
    connections,
    requests: count('http-requests'),
    warmup: values.quick ? 3 : 10,
  });
  report.http = http;
  console.log(
    `\nLocal runtime over HTTP (npm start in its own process, store included), ${count('http-requests')} ` +
      `requests per run; ratios to 1 connection`,
  );
  const single = (name: string) =>
    http.find((each) => each.name === name && each.connections === connections[0]);
  console.table(
    Object.fromEntries(
      http.map((each) => [
        `${each.name}, ${each.connections} conn.`,
        {
          'requests/s': vs(each.requestsPerSecond, single(each.name)?.requestsPerSecond, 0),
          'median ms': each.latencyMs.median,
          'p99 ms': each.latencyMs.p99,
          unexpected: each.unexpected,
        },
      ]),
    ),
  );
});

await section('key-sizes', async () => {
  const keySizes = await benchKeySizes({
    requests: count('key-size-requests'),
    // Three more runtimes to start would double the quick run.
    http: values.quick ? undefined : { requests: count('http-requests'), connections: 8, warmup: 10 },
  });
  report.keySizes = keySizes;
  const [reference] = keySizes;
  console.log(
    '\nAPI key size: in-process pipeline (as one Lambda container) and signed read over HTTP at 8 connections',
  );
  console.table(
    Object.fromEntries(
      keySizes.map(({ bits, pipeline, http }) => [
        `${bits} bits`,
        {
          'crypto ms': vs(pipeline.cryptoCpuMsPerRequest, reference?.pipeline.cryptoCpuMsPerRequest),
          'server CPU ms': vs(pipeline.serverCpuMsPerRequest, reference?.pipeline.serverCpuMsPerRequest),
          'server / crypto': pipeline.ratioToCrypto,
          'store from memory / crypto (≤ 1.3)': pipeline.pipelineRatioToCrypto,
          'requests/s': vs(pipeline.requestsPerSecond, reference?.pipeline.requestsPerSecond, 0),
          'p99 ms': vs(pipeline.latencyMs.p99, reference?.pipeline.latencyMs.p99),
          'HTTP requests/s': http ? vs(http.requestsPerSecond, reference?.http?.requestsPerSecond, 0) : '—',
          'HTTP p99 ms': http ? vs(http.latencyMs.p99, reference?.http?.latencyMs.p99) : '—',
        },
      ]),
    ),
  );
});

await section('kms', async () => {
  const roundTripMs = Number(values['kms-round-trip-ms'] ?? 15);
  if (!Number.isFinite(roundTripMs) || roundTripMs < 0)
    fail('--kms-round-trip-ms must be a number of ms ≥ 0');
  const kms = await benchKmsSigning({ signatures: count('kms-signatures'), roundTripMs });
  report.kms = kms;
  console.log(
    `\nThe response signature in the function (today) and by AWS KMS, modelled with a ${roundTripMs} ms round ` +
      `trip; ${kms.signatures} signatures each, one after another`,
  );
  console.table(
    Object.fromEntries(
      kms.sizes.map(({ bits, local, kms: byKms, dollarsPerMillion }) => [
        `${bits} bits`,
        {
          'CPU ms, in the function': local.cpuMs,
          'CPU ms, KMS call': vs(byKms.cpuMs, local.cpuMs),
          'median ms, in the function': local.medianMs,
          'median ms, KMS': vs(byKms.medianMs, local.medianMs),
          'p99 ms, KMS': byKms.p99Ms,
          '$ per million signatures, KMS': dollarsPerMillion,
        },
      ]),
    ),
  );
  console.log(
    `  KMS's shared RSA quota (${kmsRsaRequestsPerSecond}/s per account and region, adjustable) caps the API at ` +
      `${kmsRsaRequestsPerSecond} signed responses and webhooks a second together, or half that if the ` +
      'decryption key moved to KMS as well (a request with a body needs both)',
  );
});

await section('webhooks', async () => {
  const webhooks = await benchWebhooks(count('webhook-flows'), count('webhook-events'));
  report.webhooks = webhooks;
  console.log('\nWebhooks through the local runtime: queue, poller, worker, a verifying receiver');
  console.table({
    [`answer → webhook arrival, median ms (${webhooks.flows} answers)`]: webhooks.answerToWebhookMs.median,
    'answer → webhook arrival, p99 ms': webhooks.answerToWebhookMs.p99,
    [`events delivered per second (${webhooks.events} queued at once)`]: webhooks.deliveredPerSecond,
  });
});

await section('pushes', async () => {
  const pushes = await benchPushes(count('push-flows'), count('push-events'));
  const createCost = pushCreateCost as NonNullable<typeof pushCreateCost>;
  report.pushes = { ...pushes, createCost };
  console.log(
    '\nWeb Push through the local runtime: push queue, poller, worker, a verifying and decrypting receiver',
  );
  console.table({
    [`create's 201 → push arrival, median ms (${pushes.flows} creates; target ≤ ${createToPushTargetMs})`]:
      target(pushes.createToPushMs.median, createToPushTargetMs),
    "create's 201 → push arrival, p99 ms": pushes.createToPushMs.p99,
    [`pushes delivered per second by one worker (${pushes.events} events queued at once)`]:
      pushes.deliveredPerSecond,
    'create over HTTP, median ms: device with a channel · without': `${pushes.createMsWithChannel.median} · ${pushes.createMsWithoutChannel.median}`,
    'create over HTTP, p99 ms: device with a channel · without': `${pushes.createMsWithChannel.p99} · ${pushes.createMsWithoutChannel.p99}`,
  });
  console.log(
    `  What a push adds to a create, in-process through the handler (${createCost.creates} creates each; ` +
      `queue commands of one: ${JSON.stringify(createCost.queueCommandsPerCreate)})`,
  );
  const added = (pick: (each: typeof createCost.withPush) => number) =>
    round(pick(createCost.withPush) - pick(createCost.withoutPush));
  console.table({
    'CPU ms': {
      'with push': createCost.withPush.cpuMs,
      'push queue unset': createCost.withoutPush.cpuMs,
      added: added((each) => each.cpuMs),
      'one queue send': createCost.oneSend.cpuMs,
      'added / one send': createCost.cpuRatioToOneSend,
    },
    'median ms': {
      'with push': createCost.withPush.latencyMs.median,
      'push queue unset': createCost.withoutPush.latencyMs.median,
      added: added((each) => each.latencyMs.median),
      'one queue send': createCost.oneSend.latencyMs.median,
      'added / one send': createCost.latencyRatioToOneSend,
    },
  });
});

await section('clis', async () => {
  const clis = await benchCliCalls(count('cli-calls'));
  report.clis = clis;
  console.log(
    `\nCLI calls against the local runtime, ${clis.repetitions} of each (target ≤ 1000 ms through npm run); ` +
      `building the bundles took ${clis.buildMs} ms`,
  );
  console.table(
    Object.fromEntries(
      clis.calls.map((each) => [
        each.command,
        {
          'npm run, median ms': each.npmMs.median,
          'npm run, max ms': each.npmMs.max,
          'bundle alone, median ms': each.bundleMs.median,
          'bundle alone, max ms': each.bundleMs.max,
        },
      ]),
    ),
  );
});

await section('web', async () => {
  const web = await benchWeb(count('web-loads'));
  report.web = web;
  const { profile } = web;
  console.log(
    `\nWeb authenticator from a QR URL, cold, on a throttled phone (CPU ${profile.cpuSlowdown}× slower, ` +
      `${profile.latencyMs} ms latency, ${profile.downloadKbps} Kbps down, ${profile.uploadKbps} Kbps up), ` +
      `${web.loads} loads`,
  );
  console.table({
    'navigation start → first screen drawn, median ms': web.firstScreenMs.median,
    [`navigation start → first screen drawn, p95 ms (target ≤ ${firstScreenTargetMs})`]: target(
      web.firstScreenMs.p95,
      firstScreenTargetMs,
    ),
    'navigation start → first screen drawn, max ms': web.firstScreenMs.max,
    'asking for the page → linking form on screen, median ms (as the bench sees it)': web.wallMs.median,
    'asking for the page → linking form on screen, p95 ms': web.wallMs.p95,
    [`JavaScript gzipped, KB (target ≤ ${javascriptGzipTargetKb})`]: target(
      web.javascriptGzipKb,
      javascriptGzipTargetKb,
    ),
  });
});

await section('console', async () => {
  const screen = await benchConsoleScreen(count('console-loads'));
  report.console = screen;
  const { profile } = screen;
  console.log(
    `\nConsole, cold, on a throttled laptop (CPU ${profile.cpuSlowdown}× slower, ${profile.latencyMs} ms latency, ` +
      `${profile.downloadKbps} Kbps both ways), ${screen.loads} loads`,
  );
  console.table({
    'navigation start → sign-in drawn, median ms': screen.firstScreenMs.median,
    [`navigation start → sign-in drawn, p95 ms (target ≤ ${consoleFirstScreenTargetMs})`]: target(
      screen.firstScreenMs.p95,
      consoleFirstScreenTargetMs,
    ),
    'navigation start → sign-in drawn, max ms': screen.firstScreenMs.max,
    'asking for the page → sign-in on screen, median ms (as the bench sees it)': screen.wallMs.median,
    [`JavaScript gzipped, every section, KB (target ≤ ${consoleJavascriptGzipTargetKb})`]: target(
      screen.javascriptGzipKb,
      consoleJavascriptGzipTargetKb,
    ),
  });
});

const measuredBudgets = budgets(report);
report.budgets = measuredBudgets;
// A before-and-after run alone measures none of them.
if (Object.keys(measuredBudgets).length > 0) {
  console.log('\nBudgets');
  console.table(measuredBudgets);
}
report.seconds = { ...sectionSeconds, total: round((performance.now() - benchStarted) / 1000, 1) };
// Only a full run replaces the figures the README quotes.
const compared = report.baseline as Awaited<ReturnType<typeof benchBaseline>> | undefined;
const partial = [
  ...(values.only ? [`only-${only.join('-')}`] : []),
  ...(compared ? [`baseline-${compared.commit.slice(0, 7)}`] : []),
];
const reportFile = values.quick
  ? 'bench-results/quick.json'
  : `bench-results/${partial.length > 0 ? partial.join('-') : 'latest'}.json`;
await writeFile(reportFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nWritten to ${reportFile} (${round((performance.now() - benchStarted) / 1000, 1)} s in all)`);
if (values['check-round-trips']) checkRoundTrips(report.scaling as Awaited<ReturnType<typeof benchScaling>>);

/** Fails the run where a class waits for more round trips in turn than its ceiling allows. */
function checkRoundTrips(points: Awaited<ReturnType<typeof benchScaling>>) {
  const checks = depthChecks(points);
  const over = checks.filter((each) => each.depth > each.ceiling);
  for (const each of over)
    console.error(
      `Round-trip check FAILED: ${each.name} waits for ${each.depth} round trips in turn, its ceiling is ` +
        `${each.ceiling} (test/bench/round-trip-ceilings.ts): a change added a round trip to its critical path`,
    );
  for (const each of checks.filter((c) => c.depth < c.ceiling))
    console.log(
      `Round-trip check: ${each.name} waits for ${each.depth}, below its ceiling ${each.ceiling}: lower it in ` +
        'test/bench/round-trip-ceilings.ts',
    );
  if (over.length > 0) process.exitCode = 1;
  else console.log(`Round-trip check passed: ${checks.length} classes within their ceilings`);
}

/** The endpoint classes of `commit` and of this working tree, side by side (baseline.ts). */
async function beforeAndAfter(commit: string) {
  const started = performance.now();
  console.log(
    `\nBefore (${commit}) and after (this working tree): the scaling section's endpoint classes, each side's own ` +
      `bench in its own process, ${count('class-requests')} requests each, run before, after, after, before; ` +
      "each side's better run, and after / before",
  );
  const flags = [
    ...['--class-requests', `${count('class-requests')}`, '--users', '1', '--services', '2'],
    ...['--store-delay-ms', `${latencyModel.storeMs}`, '--queue-delay-ms', `${latencyModel.queueMs}`],
  ];
  const baseline = await benchBaseline({
    commit,
    flags,
    quick: values.quick ?? false,
    log: console.log,
  }).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
  report.baseline = { ...baseline, seconds: round((performance.now() - started) / 1000, 1) };
  const short = baseline.commit.slice(0, 7);
  const trips = (side: ClassSide | null) =>
    side
      ? `${side.storeRoundTrips}${side.queueRoundTrips > 0 ? ` + ${side.queueRoundTrips} queue` : ''} (${side.roundTripDepth})`
      : '—';
  const times = (value: number | null) => (value === null ? '—' : `×${value}`);
  for (const { name, before, after, ratio } of baseline.comparison.classes) {
    const depthChange = before && after ? after.roundTripDepth - before.roundTripDepth : null;
    const row = (pick: (side: ClassSide) => number | null, change: number | null) => ({
      [`before (${short})`]: before ? (pick(before) ?? '—') : '—',
      after: after ? (pick(after) ?? '—') : '—',
      'after / before': times(change),
    });
    console.log(`\n${name}`);
    console.table({
      'round trips (depth)': {
        [`before (${short})`]: trips(before),
        after: trips(after),
        'after / before':
          depthChange === null
            ? '—'
            : depthChange === 0
              ? 'same depth'
              : `depth ${depthChange > 0 ? '+' : ''}${depthChange}`,
      },
      'server CPU ms': row((side) => side.serverCpuMs, ratio.serverCpuMs),
      'crypto ms': row((side) => side.cryptoMs, ratio.cryptoMs),
      'server / crypto': row((side) => side.serverToCrypto, ratio.serverToCrypto),
      'median ms': row((side) => side.medianMs, ratio.medianMs),
      'median ms, modelled': row((side) => side.modelledMedianMs, ratio.modelledMedianMs),
    });
  }
  const { flow } = baseline.comparison;
  console.log('\nApprovals (create, device list, answer, poll; handlers only)');
  console.table({
    'approvals/s': {
      [`before (${short})`]: flow.before.perSecond,
      after: flow.after.perSecond,
      'after / before': `×${flow.timesFaster} faster`,
    },
    'median ms': {
      [`before (${short})`]: flow.before.medianMs,
      after: flow.after.medianMs,
      'after / before': times(flow.medianRatio),
    },
    'median ms, modelled': {
      [`before (${short})`]: flow.before.modelledMedianMs ?? '—',
      after: flow.after.modelledMedianMs ?? '—',
      'after / before': times(flow.modelledMedianRatio),
    },
    'server CPU / crypto': {
      [`before (${short})`]: flow.before.serverToCrypto ?? '—',
      after: flow.after.serverToCrypto ?? '—',
      'after / before': times(flow.serverToCryptoRatio),
    },
  });
  console.log(`  (before and after: ${round((performance.now() - started) / 1000, 1)} s)`);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Every budget the run measured: the figure, the target, and whether it was met. */
function budgets(
  figures: Record<string, unknown>,
): Record<string, { figure: string; target: string; met: string }> {
  const rows: Record<string, { figure: string; target: string; met: string }> = {};
  const row = (name: string, figure: string, targetText: string, met: boolean) => {
    rows[name] = { figure, target: targetText, met: met ? 'yes' : 'NO' };
  };
  const points = figures.scaling as Awaited<ReturnType<typeof benchScaling>> | undefined;
  const pipeline = figures.pipeline as Awaited<ReturnType<typeof benchPipeline>> | undefined;
  const coldStarts = figures.coldStarts as Awaited<ReturnType<typeof benchColdStarts>> | undefined;
  const assembly = figures.assemblyColdStarts as AssemblyColdStartFigures | undefined;
  const clis = figures.clis as Awaited<ReturnType<typeof benchCliCalls>> | undefined;
  const web = figures.web as Awaited<ReturnType<typeof benchWeb>> | undefined;
  const consoleScreen = figures.console as Awaited<ReturnType<typeof benchConsoleScreen>> | undefined;
  const pushes = figures.pushes as
    | (Awaited<ReturnType<typeof benchPushes>> & {
        createCost: Awaited<ReturnType<typeof benchPushCreateCost>>;
      })
    | undefined;
  const base = points?.[0];
  if (base) {
    const signed = base.classes.filter((each) => each.ratioToCrypto !== null);
    const worst = (pick: (each: EndpointCostFigures) => number) =>
      signed.reduce((most, each) => (pick(each) > pick(most) ? each : most));
    const whole = worst((each) => each.ratioToCrypto ?? 0);
    row(
      'server CPU / crypto, signed classes (whole server)',
      `max ${whole.ratioToCrypto} (${whole.name})`,
      '≤ 1.3',
      (whole.ratioToCrypto ?? 0) <= 1.3,
    );
    const own = worst((each) => each.ratioWithoutIoToCrypto ?? 0);
    row(
      'server CPU / crypto, signed classes, store answers from memory',
      `max ${own.ratioWithoutIoToCrypto} (${own.name})`,
      '≤ 1.3',
      (own.ratioWithoutIoToCrypto ?? 0) <= 1.3,
    );
    const checks = depthChecks(points);
    for (const each of base.classes) {
      if (each.roundTripTarget === null) continue;
      const check = checks.find((c) => c.name === each.name);
      const most = Math.max(
        ...points
          .flatMap((point) => point.classes.filter((c) => c.name === each.name))
          .map((c) => c.storeRoundTripDepth),
      );
      row(
        `store round-trip depth, ${each.name}`,
        `${most} (${each.storeRoundTrips} in all; with queue sends ${check?.depth}, CI ceiling ${check?.ceiling})`,
        `≤ ${each.roundTripTarget}`,
        most <= each.roundTripTarget,
      );
    }
    const scans = points
      .flatMap((point) => point.classes)
      .filter((each) => (each.storeCommands.ScanCommand ?? 0) > 0);
    row('Scan on a request path', `${scans.length}`, '0', scans.length === 0);
    const last = points.at(-1);
    if (last && last !== base) {
      // Below half a millisecond (ping, and the API key from memory) a ratio is timer noise.
      const growth = base.classes
        .filter((each) => each.serverCpuMsPerRequest >= 0.5)
        .map((each) => {
          const grown = last.classes.find((c) => c.name === each.name) as EndpointCostFigures;
          return { name: each.name, ratio: grown.serverCpuMsPerRequest / each.serverCpuMsPerRequest };
        });
      const steepest = growth.reduce((most, each) => (each.ratio > most.ratio ? each : most));
      const sameTrips = base.classes.every((each) =>
        points.every((point) => {
          const same = point.classes.find((c) => c.name === each.name);
          return (
            same?.storeRoundTrips === each.storeRoundTrips && same.roundTripDepth === each.roundTripDepth
          );
        }),
      );
      row(
        `flat from 1 user to ${last.users} users and ${last.services} services`,
        `round trips ${sameTrips ? 'unchanged' : 'CHANGED'}; CPU ×${round(steepest.ratio, 2)} at most (${steepest.name})`,
        'round trips unchanged, CPU ≤ ×1.25 (classes ≥ 0.5 ms)',
        sameTrips && steepest.ratio <= 1.25,
      );
    }
  }
  if (pipeline) {
    row(
      'pipeline request: server CPU / crypto',
      `${pipeline.ratioToCrypto}`,
      '≤ 1.3',
      pipeline.ratioToCrypto <= 1.3,
    );
    row(
      'pipeline request: store answers from memory / crypto',
      `${pipeline.pipelineRatioToCrypto}`,
      '≤ 1.3',
      pipeline.pipelineRatioToCrypto <= 1.3,
    );
  }
  const storeClient = figures.storeClient as Awaited<ReturnType<typeof benchStoreClient>> | undefined;
  const chosenClient = storeClient?.setups[1];
  if (storeClient && chosenClient) {
    row(
      'store client CPU per round trip (the store module, mix)',
      `${chosenClient.cpuMsPerRoundTrip.mix} ms (×${chosenClient.ratioToToday} today's)`,
      `≤ ${storeClientTargetMs} ms`,
      chosenClient.cpuMsPerRoundTrip.mix <= storeClientTargetMs,
    );
  }
  if (coldStarts) {
    const timed = coldStarts.bundles.filter((bundle) => bundle.coldStartMs !== null);
    const slowest = timed.reduce((most, each) =>
      (each.coldStartMs ?? 0) > (most.coldStartMs ?? 0) ? each : most,
    );
    row(
      'cold start: import + first request (esbuild bundles, untraced)',
      `max ${slowest.coldStartMs} ms (${slowest.handler}), ${timed.filter((b) => (b.coldStartMs ?? 0) > coldStartTargetMs).length} of ${timed.length} over`,
      `≤ ${coldStartTargetMs} ms`,
      (slowest.coldStartMs ?? 0) <= coldStartTargetMs,
    );
    const largest = coldStarts.bundles.reduce((most, each) =>
      each.bundleBytes > most.bundleBytes ? each : most,
    );
    row(
      'bundle size (esbuild bundles)',
      `max ${round(largest.bundleBytes / 1024, 1)} KB (${largest.handler})`,
      `≤ ${bundleTargetKb} KB`,
      largest.bundleBytes <= bundleTargetKb * 1024,
    );
  }
  if (assembly) {
    const slowest = assembly.functions.reduce((most, each) =>
      each.coldStartMs > most.coldStartMs ? each : most,
    );
    const over = assembly.functions.filter((each) => each.coldStartMs > coldStartTargetMs);
    row(
      `cold start in the assembly, login path: init + first request (Node ${assembly.node}, ${assembly.runtimeClient})`,
      `max ${slowest.coldStartMs} ms (${slowest.handler}), ${over.length} of ${assembly.functions.length} over`,
      `≤ ${coldStartTargetMs} ms each`,
      over.length === 0,
    );
    const largest = assembly.bundles.reduce((most, each) => (each.bytes > most.bytes ? each : most));
    row(
      'bundle size in the assembly (index.mjs)',
      `max ${round(largest.bytes / 1024, 1)} KB (${largest.function})`,
      `≤ ${bundleTargetKb} KB`,
      largest.bytes <= bundleTargetKb * 1024,
    );
  }
  if (clis) {
    const slowest = clis.calls.reduce((most, each) => (each.npmMs.median > most.npmMs.median ? each : most));
    row(
      'CLI call through npm run (median per command)',
      `max ${slowest.npmMs.median} ms (${slowest.command})`,
      '≤ 1000 ms',
      slowest.npmMs.median <= 1000,
    );
  }
  if (pushes) {
    row(
      "push: create's 201 → arrival at the receiver (median)",
      `${pushes.createToPushMs.median} ms`,
      `≤ ${createToPushTargetMs} ms`,
      pushes.createToPushMs.median <= createToPushTargetMs,
    );
    const { createCost } = pushes;
    const sends = Object.values(createCost.queueCommandsPerCreate).reduce((sum, each) => sum + each, 0);
    // Below a send's cost, the difference of two medians is mostly noise: a quarter of a send is let pass.
    row(
      "push: what it adds to a create's CPU, in queue sends",
      `${createCost.cpuRatioToOneSend} (${sends} queue call)`,
      '≤ 1 send (1 queue call, ratio ≤ 1.25)',
      sends === 1 && createCost.cpuRatioToOneSend <= 1.25,
    );
    row(
      "push: what it adds to a create's median latency, in queue sends",
      `${createCost.latencyRatioToOneSend}`,
      '≤ 1 send (ratio ≤ 1.25)',
      createCost.latencyRatioToOneSend <= 1.25,
    );
  }
  if (web) {
    row(
      'web authenticator: first screen usable on a throttled phone (p95)',
      `${web.firstScreenMs.p95} ms (median ${web.firstScreenMs.median} ms)`,
      `≤ ${firstScreenTargetMs} ms`,
      web.firstScreenMs.p95 <= firstScreenTargetMs,
    );
    row(
      'web authenticator: JavaScript gzipped',
      `${web.javascriptGzipKb} KB`,
      `≤ ${javascriptGzipTargetKb} KB`,
      web.javascriptGzipKb <= javascriptGzipTargetKb,
    );
  }
  if (consoleScreen) {
    row(
      'console: first screen on a throttled laptop (p95)',
      `${consoleScreen.firstScreenMs.p95} ms (median ${consoleScreen.firstScreenMs.median} ms)`,
      `≤ ${consoleFirstScreenTargetMs} ms`,
      consoleScreen.firstScreenMs.p95 <= consoleFirstScreenTargetMs,
    );
    row(
      'console: JavaScript gzipped',
      `${consoleScreen.javascriptGzipKb} KB`,
      `≤ ${consoleJavascriptGzipTargetKb} KB`,
      consoleScreen.javascriptGzipKb <= consoleJavascriptGzipTargetKb,
    );
  }
  return rows;
}
