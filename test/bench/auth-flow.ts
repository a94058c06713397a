import { createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { ApiClient } from '#shared/client/api-client';
import { keyId } from '#shared/protocol/kid';
import type { AuthorizationResponse } from '#shared/use-cases/auth-request-outcomes';
import type { CreatedAuthRequest } from '#shared/use-cases/create-auth-request';
import { currentApiKey, type SignedExchange, unavoidableCryptoMs } from '#test/bench/crypto-cost';
import type { BenchEnvironment } from '#test/bench/environment';
import { awsModel } from '#test/bench/capacity';
import { loadRouteTable } from '#test/bench/route-table';
import { type RoundTripFigures, tracingRoundTrips, withLatency } from '#test/bench/round-trips';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { totalCalls } from '#test/bench/store-calls';
import { toResponse } from '#test/support/events';
import { rsaKeyPair } from '#test/support/keys';
import { setUpTenant } from '#test/support/tenant';

/**
 * The steps of one authorization, in the order they happen, and the polls' two outcomes, with their targets for the
 * round trips waited for one after another (endpoint-classes.ts).
 */
const steps = {
  create: { route: 'POST /service/v3/auths', target: 3 },
  'device list': { route: 'GET /device/v3/auths', target: 2 },
  answer: { route: 'POST /device/v3/auths/{auth_request}', target: 3 },
  'poll while pending (204)': { route: 'GET /service/v3/auths/{auth_request}', target: 2 },
  'poll once answered (200)': { route: 'GET /service/v3/auths/{auth_request}', target: 2 },
} as const;
type Step = keyof typeof steps;
const flowSteps = ['create', 'device list', 'answer', 'poll once answered (200)'] as const;

export interface AuthFlowStepFigures {
  readonly route: string;
  /** The design's budget for storeRoundTripDepth; null where it sets none. */
  readonly target: number | null;
  readonly storeRoundTrips: number;
  /** Store and queue round trips waited for one after another (round-trips.ts). */
  readonly roundTripDepth: number;
  /** Store round trips alone waited for one after another. */
  readonly storeRoundTripDepth: number;
  /** The store commands the step made, by name. */
  readonly storeCommands: Record<string, number>;
  /** Webhook queue commands, by name: not store round trips, but round trips all the same. */
  readonly queueCommands: Record<string, number>;
  /** From the timed flows; the pending poll is not part of them. */
  readonly latencyMs?: { readonly median: number; readonly p99: number };
  readonly serverCpuMsPerRequest?: number;
}

export interface AuthFlowFigures {
  readonly flows: number;
  /** Flows per second of the four handlers' time alone. */
  readonly perSecond: number;
  /** Flows per second with the service's and the device's own work (signing, sealing, decrypting) in this process. */
  readonly perSecondEndToEnd: number;
  /** The four handlers' time per flow. */
  readonly latencyMs: { readonly median: number; readonly p99: number };
  readonly serverCpuMsPerFlow: number;
  /**
   * RSA verify of each request, JWE decrypt of each body, JWE encrypt of each response body, RS512 sign of each
   * response JWT, and the push package's RS512 signature.
   */
  readonly cryptoCpuMsPerFlow: number;
  /** Unavoidable crypto as a percentage of the server's CPU for the flow. */
  readonly cryptoSharePercent: number;
  readonly steps: Record<Step, AuthFlowStepFigures>;
}

/** One handler invocation made through the route table. */
interface Invocation {
  readonly route: string;
  readonly token: string;
  readonly body: string | undefined;
  readonly sentAt: Date;
  readonly status: number;
  readonly ms: number;
  readonly cpuMs: number;
  readonly storeCommands?: Record<string, number>;
  readonly queueCommands?: Record<string, number>;
  readonly roundTripDepth?: number;
  readonly storeRoundTripDepth?: number;
}

/**
 * The whole authorization, flow after flow for one user: the service asks (POST /service/v3/auths), the user's device
 * lists what is pending and answers it with the reference authenticator, and the service reads the answer. Every
 * request is signed and goes through the real handler of its route table row, in-process, with the store in another
 * process. Only the handlers are timed: the service's and the device's own crypto happen outside.
 */
export async function benchAuthFlow(environment: BenchEnvironment, flows: number): Promise<AuthFlowFigures> {
  const table = await routeTable();
  const scene = await newScene(environment, table.fetch);
  // One device, as a phone keeps its client (clock offset, API key) between requests; the pins it would rotate and
  // keep are no concern of the server's.
  const { service, subject, username, authenticator } = scene;

  const flow = async (options: { pollWhilePending?: boolean } = {}) => {
    const from = table.invocations.length;
    const created = (
      await service.call<CreatedAuthRequest>('POST', '/service/v3/auths', { subject, body: { username } })
    ).body as CreatedAuthRequest;
    if (options.pollWhilePending) {
      const pending = await service.call('GET', `/service/v3/auths/${created.auth_request}`, { subject });
      if (pending.status !== 204) throw new Error(`a pending poll answered ${pending.status}`);
    }
    const listed = await authenticator.pending();
    const request = listed[0];
    if (request?.auth_request !== created.auth_request)
      throw new Error('the device was not offered the request');
    await authenticator.answer(request, { approve: true });
    const path = `/service/v3/auths/${created.auth_request}`;
    const read = await service.call<AuthorizationResponse>('GET', path, { subject });
    if (read.status !== 200) throw new Error(`the answered request read as ${read.status}`);
    return { invocations: table.invocations.slice(from), created, listed, read: read.body };
  };

  // Warm up: the first flows pay for module loading, key imports and connection set-up.
  for (let i = 0; i < 10; i++) await flow();
  table.counting = true;
  const counted = await flow({ pollWhilePending: true });
  table.counting = false;
  const [create, pendingPoll, deviceList, answer, answeredPoll] = counted.invocations;
  const countedSteps: Record<Step, Invocation | undefined> = {
    create,
    'device list': deviceList,
    answer,
    'poll while pending (204)': pendingPoll,
    'poll once answered (200)': answeredPoll,
  };

  table.invocations.length = 0;
  const runs: Awaited<ReturnType<typeof flow>>[] = [];
  const started = performance.now();
  for (let i = 0; i < flows; i++) runs.push(await flow());
  const seconds = (performance.now() - started) / 1000;

  const perFlow = (pick: (invocation: Invocation) => number) =>
    runs.map((each) => each.invocations.reduce((sum, invocation) => sum + pick(invocation), 0));
  const serverMs = perFlow((invocation) => invocation.ms);
  const serverCpu = perFlow((invocation) => invocation.cpuMs).reduce((sum, value) => sum + value, 0);
  const crypto = await unavoidableCrypto(environment, scene, runs);

  const stepFigures = Object.fromEntries(
    (Object.keys(steps) as Step[]).map((step) => {
      const invocation = countedSteps[step];
      if (invocation?.route !== steps[step].route)
        throw new Error(`${step} went to ${invocation?.route ?? 'nothing'}`);
      const storeCommands = invocation.storeCommands ?? {};
      const timedIndex = (flowSteps as readonly string[]).indexOf(step);
      const timed = timedIndex === -1 ? [] : runs.map((each) => each.invocations[timedIndex] as Invocation);
      const figures: AuthFlowStepFigures = {
        route: steps[step].route,
        target: steps[step].target,
        storeRoundTrips: totalCalls(storeCommands),
        roundTripDepth: invocation.roundTripDepth ?? 0,
        storeRoundTripDepth: invocation.storeRoundTripDepth ?? 0,
        storeCommands,
        queueCommands: invocation.queueCommands ?? {},
        ...(timed.length === 0
          ? {}
          : {
              latencyMs: {
                median: round(
                  percentile(
                    timed.map((each) => each.ms),
                    50,
                  ),
                ),
                p99: round(
                  percentile(
                    timed.map((each) => each.ms),
                    99,
                  ),
                ),
              },
              serverCpuMsPerRequest: round(timed.reduce((sum, each) => sum + each.cpuMs, 0) / timed.length),
            }),
      };
      return [step, figures];
    }),
  ) as Record<Step, AuthFlowStepFigures>;

  const serverSeconds = serverMs.reduce((sum, value) => sum + value, 0) / 1000;
  return {
    flows,
    perSecond: Math.round(flows / serverSeconds),
    perSecondEndToEnd: Math.round(flows / seconds),
    latencyMs: { median: round(percentile(serverMs, 50)), p99: round(percentile(serverMs, 99)) },
    serverCpuMsPerFlow: round(serverCpu / flows),
    cryptoCpuMsPerFlow: round(crypto / flows),
    cryptoSharePercent: round((crypto / serverCpu) * 100, 1),
    steps: stepFigures,
  };
}

interface Scene {
  readonly service: ApiClient;
  readonly serviceKey: ReturnType<typeof rsaKeyPair>;
  readonly subject: string;
  readonly username: string;
  readonly authenticator: Authenticator;
  readonly devicePublic: KeyObject;
}

/**
 * The tenant test/support/tenant.ts sets up, through the route table in-process, with a key of the service's own (the
 * service signs its requests, as an application does) and one user whose device linked itself.
 */
async function newScene(environment: BenchEnvironment, fetch: typeof globalThis.fetch): Promise<Scene> {
  const organization = environment.client({ fetch });
  const tenant = await setUpTenant(organization, 'http://bench.invalid', {
    name: `Bench auth flow ${randomUUID().slice(0, 8)}`,
    fetch,
  });
  // One user asked flow after flow: far past the per-user limit a person is protected by. Loaded now, as the store
  // reads the bench's environment when it loads.
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  await updateDirectorySettings(tenant.directoryId, { rateLimit: '10000/60' });
  const serviceKey = rsaKeyPair();
  await organization.call('POST', '/directory/v3/service/keys', {
    subject: `dir:${tenant.directoryId}`,
    body: { service_id: tenant.serviceId, public_key: serviceKey.publicPem },
  });
  const username = `bench-user-${randomUUID().slice(0, 8)}`;
  const authenticator = await tenant.linkUser(username);
  return {
    service: new ApiClient({
      baseUrl: 'http://bench.invalid',
      issuer: `svc:${tenant.serviceId}`,
      privateKeyPem: serviceKey.privatePem,
      fetch,
    }),
    serviceKey,
    subject: tenant.subject,
    username,
    authenticator,
    devicePublic: createPublicKey(authenticator.state.privateKeyPem),
  };
}

/**
 * A fetch that hands each request to the handler of its route table row, as the local runtime's HTTP server does but
 * without HTTP. Signed requests are recorded with the time and CPU their handler took, and, while `counting`, the
 * store and queue commands it made and their depth, with each round trip delayed as in AWS so that the ones sent
 * together overlap however fast the local store answers.
 */
async function routeTable() {
  const { route } = await loadRouteTable();
  const invocations: Invocation[] = [];
  const table = {
    invocations,
    counting: false,
    fetch: async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const headers = Object.fromEntries(request.headers);
      const text = await request.text();
      const body = text === '' ? undefined : text;
      const routed = route({ method: request.method, path: url.pathname + url.search, headers, body });
      const sentAt = new Date();
      let result: Awaited<ReturnType<typeof routed.invoke>> | undefined;
      let ms = 0;
      const invoke = () =>
        cpuMs(async () => {
          const started = performance.now();
          result = await routed.invoke();
          ms = performance.now() - started;
        });
      let cpu: number;
      let traced: RoundTripFigures | undefined;
      if (table.counting) {
        const model = { storeMs: awsModel.storeRoundTripMs, queueMs: awsModel.queueSendMs };
        const counted = await withLatency(model, () => tracingRoundTrips(invoke));
        cpu = counted.result;
        traced = counted.figures();
      } else {
        cpu = await invoke();
      }
      if (!result) throw new Error(`${routed.routeKey} returned nothing`);
      const token = headers.authorization?.split(' ')[1];
      if (token) {
        invocations.push({
          route: routed.routeKey,
          token,
          body,
          sentAt,
          status: result.statusCode ?? 200,
          ms,
          cpuMs: cpu,
          ...(traced
            ? {
                storeCommands: traced.storeCommands,
                queueCommands: traced.queueCommands,
                roundTripDepth: traced.depth,
                storeRoundTripDepth: traced.storeDepth,
              }
            : {}),
        });
      }
      return toResponse(result);
    },
  };
  return table;
}

/**
 * The same flows' unavoidable crypto, as pipeline.ts measures it: per request an RSA verify of its JWT and a JWE
 * decrypt of its body if it has one; per response a JWE encrypt of its body if it has one and an RS512 sign of its
 * JWT; and the push package the create signs.
 */
async function unavoidableCrypto(
  environment: BenchEnvironment,
  scene: Scene,
  runs: readonly {
    invocations: readonly Invocation[];
    created: CreatedAuthRequest;
    listed: unknown;
    read: AuthorizationResponse | undefined;
  }[],
): Promise<number> {
  const encoder = new TextEncoder();
  const service = { publicKey: scene.serviceKey.publicKey, kid: scene.serviceKey.kid };
  const device = { publicKey: scene.devicePublic, kid: keyId(scene.devicePublic) };
  // Per flow step: who signed the request and receives the response, and the response body it got.
  const exchanges = runs.flatMap((each) =>
    [
      { caller: service, response: each.created as unknown },
      { caller: device, response: each.listed },
      { caller: device, response: undefined },
      { caller: service, response: each.read as unknown },
    ].map((step, index): SignedExchange => {
      const invocation = each.invocations[index] as Invocation;
      return {
        token: invocation.token,
        sentAt: invocation.sentAt,
        caller: step.caller,
        body: invocation.body,
        response: step.response === undefined ? undefined : encoder.encode(JSON.stringify(step.response)),
        status: invocation.status,
        pushPackage: invocation.route === steps.create.route,
      };
    }),
  );
  return unavoidableCryptoMs(await currentApiKey(environment.apiKeysFile), exchanges);
}
