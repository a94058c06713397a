import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { runningRuntime } from '#infra/local/attach';
import { engineClientConfig } from '#infra/local/engines';
import { ensurePushQueues } from '#infra/local/provision';
import type { Authenticator } from '#shared/authenticator/authenticator';
import type { ApiClient } from '#shared/client/api-client';
import { queuedPushBody } from '#shared/events/push-event';
import type { BenchEnvironment } from '#test/bench/environment';
import { countingQueueCommands } from '#test/bench/queue-calls';
import { loadRouteTable } from '#test/bench/route-table';
import { percentile, round } from '#test/bench/stats';
import { toResponse } from '#test/support/events';
import { type PushReceiver, type ReceivedPush, startPushReceiver } from '#test/support/push-receiver';
import { demoOrganization, liftRateLimit, startServiceProcess } from '#test/support/service-process';
import { setUpTenant, type Tenant } from '#test/support/tenant';

/** The README's target for a create's 201 to its push's arrival, locally. */
export const createToPushTargetMs = 150;

interface Latency {
  readonly median: number;
  readonly p99: number;
}

export interface PushDeliveryFigures {
  readonly flows: number;
  /** From a create's 201 to its prompt's arrival at the receiver, verified (VAPID) and decrypted (RFC 8291). */
  readonly createToPushMs: Latency;
  /** The same creates' latency over HTTP, the user's device with a Web Push channel. */
  readonly createMsWithChannel: Latency;
  /** Creates for a user whose device has no channel, interleaved with those: the worker finds nothing to push. */
  readonly createMsWithoutChannel: Latency;
  readonly events: number;
  /** Prompt events queued at once (each for its own user's pending request), pushed per second by the one worker. */
  readonly deliveredPerSecond: number;
}

export interface PushCreateCostFigures {
  readonly creates: number;
  /** One create's queue commands with the push queue configured: the push's one batch send. */
  readonly queueCommandsPerCreate: Record<string, number>;
  /** The create handler with its push announced, and the same handler with the push queue unset (no send). */
  readonly withPush: { readonly cpuMs: number; readonly latencyMs: Latency };
  readonly withoutPush: { readonly cpuMs: number; readonly latencyMs: Latency };
  /** The create's batch (prompt and delayed end) sent alone by the handlers' own queue client. */
  readonly oneSend: { readonly cpuMs: number; readonly latencyMs: Latency };
  /** What the push added to a create, divided by one send's cost: 1 or less means no more than the send. */
  readonly cpuRatioToOneSend: number;
  readonly latencyRatioToOneSend: number;
}

const warmupFlows = 5;
const latency = (values: readonly number[]): Latency => ({
  median: round(percentile(values, 50)),
  p99: round(percentile(values, 99)),
});
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Pushes through `npm start`'s runtime in its own process (its push queue poller and worker included), to a Web Push
 * receiver in this process that checks each push's VAPID JWT and decrypts it as a browser would. The latency figure:
 * flows one after another for one user whose device registered a subscription; each create's 201 to the arrival of
 * its prompt, then a cancel whose "ended" push is awaited before the next create. The throughput figure: `events`
 * users, each with a device, a subscription and a pending request (created before the subscriptions, so the create's
 * own prompt finds no channel), then one prompt event per request put on the push queue at once; from the first send
 * to the receiver holding every push. The local runtime runs one poller feeding one worker batches of 10, one batch
 * after another, as one Lambda instance would be fed: the figure is one worker's, queue receives and deletes included.
 */
export async function benchPushes(flows: number, events: number): Promise<PushDeliveryFigures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-pushes-'));
  const service = await startServiceProcess(['--port', '0', '--data-dir', dataDir], {
    PUSH_VAPID_SUBJECT: 'mailto:bench@example.org',
  });
  const { client: organization } = await demoOrganization(service);
  const receiver = await startPushReceiver();
  const runtime = await runningRuntime(dataDir);
  if (!runtime?.pushQueueUrl) throw new Error('the service process recorded no push queue');
  const { pushQueueUrl } = runtime;
  const sqs = new SQSClient(engineClientConfig(runtime.sqsEndpoint));
  try {
    const tenant = await setUpTenant(organization, service.baseUrl, { name: 'Bench pushes' });
    await liftRateLimit(tenant.directoryId, dataDir);
    const flowFigures = await timeFlows(organization, tenant, receiver, flows);

    const users = await linkUsers(tenant, events);
    const authRequests: string[] = [];
    for (const user of users) authRequests.push(await create(organization, tenant, user.name));
    // The creates' own prompts must find no channel: the devices subscribe only once the worker has taken them all.
    await until(async () => (await queueIdle(sqs, pushQueueUrl)) || undefined, 30_000);
    for (const user of users) await user.device.registerWebPush(receiver.subscribe(user.name).json);
    const expected = new Set(authRequests);
    const arrived = () =>
      receiver.received.filter(
        (push) => push.payload.type === 'auth_request' && expected.has(push.payload.auth_request as string),
      ).length;
    if (arrived() > 0) throw new Error('a load user was pushed before its event was queued');
    const started = performance.now();
    for (let sent = 0; sent < authRequests.length; sent += 10) {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: pushQueueUrl,
          Entries: authRequests.slice(sent, sent + 10).map((authRequestId, index) => ({
            Id: String(index),
            MessageBody: queuedPushBody({ kind: 'prompt', authRequestId }),
          })),
        }),
      );
    }
    await until(() => arrived() >= events || undefined, 120_000);
    const seconds = (performance.now() - started) / 1000;
    if (receiver.rejected.length > 0) throw new Error(`pushes failed to verify: ${receiver.rejected[0]}`);
    return { flows, ...flowFigures, events, deliveredPerSecond: Math.round(events / seconds) };
  } finally {
    sqs.destroy();
    await receiver.close();
    await service.stop('SIGINT');
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Create, wait for the prompt, cancel, wait for the end; and a create and cancel for a user with no channel. */
async function timeFlows(
  organization: ApiClient,
  tenant: Tenant,
  receiver: PushReceiver,
  flows: number,
): Promise<Pick<PushDeliveryFigures, 'createToPushMs' | 'createMsWithChannel' | 'createMsWithoutChannel'>> {
  const pushed = await tenant.linkUser('bench-pushed');
  await pushed.registerWebPush(receiver.subscribe('bench-pushed').json);
  await tenant.linkUser('bench-quiet');
  const toPush: number[] = [];
  const withChannel: number[] = [];
  const withoutChannel: number[] = [];
  for (let flow = 0; flow < flows + warmupFlows; flow++) {
    const sent = performance.now();
    const authRequest = await create(organization, tenant, 'bench-pushed');
    const createdAt = performance.now();
    const prompt = await arrival(
      receiver,
      (push) => push.payload.auth_request === authRequest && push.payload.type === 'auth_request',
    );
    await cancel(organization, tenant, authRequest);
    await arrival(
      receiver,
      (push) => push.payload.auth_request === authRequest && push.payload.type === 'auth_request_ended',
    );
    const quietSent = performance.now();
    const quiet = await create(organization, tenant, 'bench-quiet');
    const quietMs = performance.now() - quietSent;
    await cancel(organization, tenant, quiet);
    // The first flows pay for cold modules, key imports and connections, in both processes.
    if (flow < warmupFlows) continue;
    toPush.push(prompt.at - createdAt);
    withChannel.push(createdAt - sent);
    withoutChannel.push(quietMs);
  }
  if (receiver.rejected.length > 0) throw new Error(`pushes failed to verify: ${receiver.rejected[0]}`);
  return {
    createToPushMs: latency(toPush),
    createMsWithChannel: latency(withChannel),
    createMsWithoutChannel: latency(withoutChannel),
  };
}

async function linkUsers(
  tenant: Tenant,
  count: number,
): Promise<{ readonly name: string; readonly device: Authenticator }[]> {
  const users: { name: string; device: Authenticator }[] = [];
  for (let index = 0; index < count; index++) {
    const name = `bench-load-${index}`;
    users.push({ name, device: await tenant.linkUser(name) });
  }
  return users;
}

async function create(organization: ApiClient, tenant: Tenant, username: string): Promise<string> {
  const created = await organization.call<{ auth_request: string }>('POST', '/service/v3/auths', {
    subject: tenant.subject,
    body: { username },
  });
  if (created.status !== 201 || !created.body) throw new Error(`a create answered ${created.status}`);
  return created.body.auth_request;
}

async function cancel(organization: ApiClient, tenant: Tenant, authRequest: string): Promise<void> {
  await organization.call('DELETE', `/service/v3/auths/${authRequest}`, { subject: tenant.subject });
}

/**
 * The first push that matches, and when it was recorded: the receiver records a push once it verified and decrypted
 * it, in this process, so a 1 ms poll sees it within about a millisecond (its own waitFor polls every 20 ms).
 */
async function arrival(
  receiver: PushReceiver,
  match: (push: ReceivedPush) => boolean,
  timeoutMs = 10_000,
): Promise<{ push: ReceivedPush; at: number }> {
  const push = await until(() => receiver.received.find(match), timeoutMs, 1);
  if (!push) throw new Error(`no matching push; rejected: ${receiver.rejected.join('; ') || 'none'}`);
  return { push, at: performance.now() };
}

async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 10,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms`);
}

/** No message waiting or being worked on (the creates' delayed end messages wait, and do not count). */
async function queueIdle(sqs: SQSClient, queueUrl: string): Promise<boolean> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Attributes.ApproximateNumberOfMessages === '0' && Attributes.ApproximateNumberOfMessagesNotVisible === '0'
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What pushes add to a create, in-process through the real handler (the store and queue in another process): the
 * create timed alone, alternately with the push queue configured (the create sends its one batch: the prompt and the
 * delayed end) and unset (the send is skipped before any I/O), each followed by a cancel that is not timed; and that
 * batch sent alone, as many times, by the handlers' own queue client. The difference between the two creates, over
 * the one send's cost, is the ratio: about 1 means the push costs the create one queue send and nothing else.
 */
export async function benchPushCreateCost(
  environment: BenchEnvironment,
  creates: number,
): Promise<PushCreateCostFigures> {
  const sqsEndpoint = process.env.AWS_ENDPOINT_URL_SQS;
  if (!sqsEndpoint) throw new Error('the bench environment has no queue');
  const { queueUrl } = await ensurePushQueues(sqsEndpoint, 'bench');
  const previousQueueUrl = process.env.PUSH_QUEUE_URL;
  const pushesOn = (on: boolean) => {
    if (on) process.env.PUSH_QUEUE_URL = queueUrl;
    else delete process.env.PUSH_QUEUE_URL;
  };
  try {
    const { route } = await loadRouteTable();
    let lastCreate: { ms: number; cpuMs: number } | undefined;
    // Hands each request to its handler as the local runtime's server does, and times a create's handler alone.
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const text = await request.text();
      const routed = route({
        method: request.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        body: text === '' ? undefined : text,
      });
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const result = await routed.invoke();
      const ms = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      if (routed.routeKey === 'POST /service/v3/auths')
        lastCreate = { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
      return toResponse(result);
    };
    const organization = environment.client({ fetch });
    const tenant = await setUpTenant(organization, 'http://bench.invalid', {
      name: `Bench push cost ${randomUUID().slice(0, 8)}`,
      fetch,
    });
    // Loaded now, as the store reads the bench's environment when it loads.
    const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
    await updateDirectorySettings(tenant.directoryId, { rateLimit: '10000/60' });
    const username = `bench-push-cost-${randomUUID().slice(0, 8)}`;
    await tenant.linkUser(username);
    const timedCreate = async () => {
      lastCreate = undefined;
      const authRequest = await create(organization, tenant, username);
      const timed = lastCreate as { ms: number; cpuMs: number } | undefined;
      if (!timed) throw new Error('the create was not timed');
      await cancel(organization, tenant, authRequest);
      return timed;
    };

    const samples = { on: [] as { ms: number; cpuMs: number }[], off: [] as { ms: number; cpuMs: number }[] };
    for (let i = 0; i < warmupFlows * 2; i++) {
      pushesOn(i % 2 === 0);
      await timedCreate();
    }
    pushesOn(true);
    const { calls: queueCommandsPerCreate } = await countingQueueCommands(async () => {
      lastCreate = undefined;
      const authRequest = await create(organization, tenant, username);
      pushesOn(false);
      await cancel(organization, tenant, authRequest);
    });
    const { queueClient } = await import('#shared/events/queue-client');
    const sendOnce = async () => {
      const authRequestId = randomUUID();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await queueClient.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: [
            { Id: 'prompt', MessageBody: queuedPushBody({ kind: 'prompt', authRequestId }) },
            {
              Id: 'expiry',
              MessageBody: queuedPushBody({ kind: 'ended', authRequestId }),
              DelaySeconds: 300,
            },
          ],
        }),
      );
      const cpu = process.cpuUsage(cpuBefore);
      return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
    };
    for (let i = 0; i < warmupFlows; i++) await sendOnce();
    // Interleaved, so that a drift of the machine's speed, and the state of its caches and connections between two
    // sends, fall on the three alike.
    const sends: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < creates; i++) {
      pushesOn(true);
      samples.on.push(await timedCreate());
      pushesOn(false);
      samples.off.push(await timedCreate());
      sends.push(await sendOnce());
    }

    const figures = (list: readonly { ms: number; cpuMs: number }[]) => ({
      cpuMs: round(mean(list.map((each) => each.cpuMs))),
      latencyMs: latency(list.map((each) => each.ms)),
    });
    const withPush = figures(samples.on);
    const withoutPush = figures(samples.off);
    const oneSend = figures(sends);
    return {
      creates,
      queueCommandsPerCreate,
      withPush,
      withoutPush,
      oneSend,
      cpuRatioToOneSend: round((withPush.cpuMs - withoutPush.cpuMs) / oneSend.cpuMs, 2),
      latencyRatioToOneSend: round(
        (withPush.latencyMs.median - withoutPush.latencyMs.median) / oneSend.latencyMs.median,
        2,
      ),
    };
  } finally {
    if (previousQueueUrl === undefined) delete process.env.PUSH_QUEUE_URL;
    else process.env.PUSH_QUEUE_URL = previousQueueUrl;
  }
}
