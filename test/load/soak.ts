import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SQSClient } from '@aws-sdk/client-sqs';
import { runningRuntime } from '#infra/local/attach';
import { engineClientConfig } from '#infra/local/engines';
import type { Authenticator } from '#shared/authenticator/authenticator';
import type { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { listDeadLetters } from '#shared/events/dead-letters';
import { startRestartableService } from '#test/load/restartable-service';
import { demoOrganization, liftRateLimit } from '#test/support/service-process';
import { setUpTenant } from '#test/support/tenant';
import { startWebhookReceiver } from '#test/support/webhook-receiver';

export interface SoakOptions {
  readonly seconds: number;
  readonly users: number;
  readonly concurrency: number;
  /** Leave some requests unanswered to expire (each holds its user for 30 s). */
  readonly abandon: boolean;
  /** Seconds into the run at which to kill the runtime (SIGKILL) and start it again on the same data. */
  readonly restartAt?: number;
  /**
   * Flows to finish even past `seconds` (up to three times as long again), so that a machine slowed by other work still
   * soaks as many flows as a quiet one; the report's rate is over the time the run took.
   */
  readonly minFlows?: number;
}

type Outcome = 'answered' | 'cancelled' | 'expired';

export interface SoakReport {
  readonly seconds: number;
  readonly users: number;
  readonly concurrency: number;
  readonly flows: number;
  readonly flowsPerSecond: number;
  readonly requests: Readonly<Record<Outcome, number>>;
  /** Concurrent second asks refused with SVC-005, as they must be. */
  readonly busyRefusals: number;
  /** Flows the restart cut short; their users' requests were then read, and cancelled if still pending. */
  readonly interruptedFlows: number;
  /** How long the runtime was down, ms; 0 without a restart. */
  readonly downtimeMs: number;
  /** Requests whose final state is not the one the run left them in. */
  readonly wrongFinalStates: string[];
  /** Users with more than one pending request at the end, or a slot naming a request that is not pending. */
  readonly usersWithTwoPending: string[];
  readonly webhooks: {
    readonly expected: number;
    readonly received: number;
    readonly rejected: number;
    /** Why the receiver refused them, as it said. */
    readonly rejections: string[];
    /** Answered 503 because the API was down when the receiver asked it for its key: the sender tries again. */
    readonly unchecked: number;
    /**
     * Answers given from 2 s before the kill until the runtime was back, or in a flow it cut short: the local queue
     * lives in memory, so events still in it at a kill are gone (SQS keeps them). Not counted in `expected`.
     */
    readonly excusedByRestart: number;
    /** Of those, how many arrived all the same. */
    readonly excusedButReceived: number;
  };
  readonly deadLetters: number;
  /** Resident memory of the service process (the restarted one at the end), MB: after set-up, at the end, the most. */
  readonly memoryMb: {
    readonly start: number;
    readonly end: number;
    readonly max: number;
    /** Every 10 s of the run, to tell a plateau from a leak. */
    readonly every10s: number[];
    /**
     * Whether the runtime's memory held level under load: after the first fifth (warm-up), the most of the second half
     * is within 20 % (+16 MB) of the most of the first. Null for less than 60 s of load by one process.
     */
    readonly flat: boolean | null;
  };
  readonly errors: string[];
  readonly ok: boolean;
}

/**
 * The full flow with many users for a fixed time against `npm start`'s runtime in its own process, then a check of
 * everything the run left behind: each request in exactly the final state it was driven to, no user holding two
 * pending requests, every answer's webhook received once verified, an empty DLQ, and the runtime's memory.
 */
export async function soak(options: SoakOptions): Promise<SoakReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-soak-'));
  const service = await startRestartableService(dataDir);
  const { client: organization, keys } = await demoOrganization(service.current);
  const receiver = await startWebhookReceiver({ apiBaseUrl: service.baseUrl, keys });
  const memory: { at: number; epoch: number; mb: number }[] = [];
  const sampler = setInterval(() => {
    const epoch = service.epoch;
    void residentMb(service.current.child.pid).then((mb) => mb && memory.push({ at: Date.now(), epoch, mb }));
  }, 500);
  const errors: string[] = [];
  try {
    const { subject, devices } = await scene(
      organization,
      service.baseUrl,
      receiver.url('/hooks'),
      options.users,
      dataDir,
    );
    const startMemory = (await residentMb(service.current.child.pid)) ?? 0;
    const outcomes = new Map<
      string,
      { user: string; outcome: Outcome; expiresAt: number; answeredAt?: number; interrupted?: boolean }
    >();
    const created = new Map<string, string[]>();
    const idle = new Set(devices.keys());
    const heldUntil = new Map<string, number>();
    let busyRefusals = 0;
    let flows = 0;
    let interruptedFlows = 0;

    const ask = async (user: string, ttl: number) => {
      const id = (
        await organization.call<{ auth_request: string }>('POST', '/service/v3/auths', {
          subject,
          body: { username: user, ttl, context: `soak ${flows}` },
        })
      ).body?.auth_request as string;
      created.set(user, [...(created.get(user) ?? []), id]);
      return id;
    };
    const oneFlow = async (user: string) => {
      const device = devices.get(user) as Authenticator;
      const roll = Math.random();
      if (options.abandon && roll < 0.05) {
        const id = await ask(user, 30);
        outcomes.set(id, { user, outcome: 'expired', expiresAt: Date.now() + 30_000 });
        heldUntil.set(user, Date.now() + 31_000);
        return;
      }
      if (roll < 0.2) {
        const id = await ask(user, 120);
        await organization.call('DELETE', `/service/v3/auths/${id}`, { subject });
        outcomes.set(id, { user, outcome: 'cancelled', expiresAt: 0 });
        return;
      }
      // Now and then a second request races the first: exactly one of them may win.
      const racing = roll < 0.35;
      const attempts = await Promise.allSettled(racing ? [ask(user, 120), ask(user, 120)] : [ask(user, 120)]);
      const won = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
      for (const attempt of attempts) {
        if (attempt.status === 'rejected') {
          if ((attempt.reason as ApiRequestError).errorCode === 'SVC-005') busyRefusals++;
          else throw attempt.reason;
        }
      }
      if (won.length !== 1)
        throw new Error(`${won.length} of ${attempts.length} concurrent asks won for ${user}`);
      const [pending] = await device.pending();
      if (!pending || pending.auth_request !== won[0]) {
        throw new Error(`the device of ${user} does not see its request`);
      }
      await device.answer(pending, { approve: Math.random() < 0.5 });
      const read = await organization.call('GET', `/service/v3/auths/${pending.auth_request}`, { subject });
      if (read.status !== 200) throw new Error(`an answered request read as ${read.status}`);
      outcomes.set(pending.auth_request, { user, outcome: 'answered', expiresAt: 0, answeredAt: Date.now() });
    };
    // After a flow the kill cut short: whatever it left pending is cancelled (as an application would on its
    // next attempt), and whatever it finished is what the store says.
    const settleInterrupted = async (user: string) => {
      await service.ready;
      for (const pending of await (devices.get(user) as Authenticator).pending()) {
        if (!created.get(user)?.includes(pending.auth_request)) {
          created.set(user, [...(created.get(user) ?? []), pending.auth_request]);
        }
        await organization.call('DELETE', `/service/v3/auths/${pending.auth_request}`, { subject });
        outcomes.set(pending.auth_request, { user, outcome: 'cancelled', expiresAt: 0, interrupted: true });
      }
      for (const id of created.get(user) ?? []) {
        if (outcomes.has(id)) continue;
        const state = await finalState(organization, subject, id, new Map());
        if (state !== 'answered' && state !== 'cancelled')
          throw new Error(`${id} reads ${state} after a restart`);
        outcomes.set(id, { user, outcome: state, expiresAt: 0, interrupted: true });
      }
    };

    const deadline = Date.now() + options.seconds * 1000;
    const lastChance = deadline + 3 * options.seconds * 1000;
    const going = () => Date.now() < deadline || (flows < (options.minFlows ?? 0) && Date.now() < lastChance);
    const started = Date.now();
    const restart =
      options.restartAt === undefined
        ? undefined
        : setTimeout(() => void service.killAndRestart(), options.restartAt * 1000);
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (going()) {
          const user = [...idle].find((candidate) => (heldUntil.get(candidate) ?? 0) <= Date.now());
          if (!user) {
            await sleep(50);
            continue;
          }
          idle.delete(user);
          await service.ready;
          const epoch = service.epoch;
          try {
            await oneFlow(user);
            flows++;
          } catch (error) {
            if (epoch === service.epoch) errors.push(error instanceof Error ? error.message : String(error));
            else {
              interruptedFlows++;
              await settleInterrupted(user).catch((settling: unknown) =>
                errors.push(settling instanceof Error ? settling.message : String(settling)),
              );
            }
          } finally {
            idle.add(user);
          }
        }
      }),
    );
    clearTimeout(restart);
    const loadEnded = Date.now();
    await service.ready;
    const elapsed = (Date.now() - started) / 1000;

    // Let the abandoned requests expire and the webhooks drain.
    const lastExpiry = Math.max(0, ...[...outcomes.values()].map((entry) => entry.expiresAt));
    await sleep(Math.max(0, lastExpiry - Date.now() + 1_500));
    const answered = [...outcomes.entries()].filter(([, entry]) => entry.outcome === 'answered');
    const excused = (entry: { answeredAt?: number; interrupted?: boolean }) =>
      entry.interrupted === true ||
      (service.killedAt > 0 &&
        (entry.answeredAt ?? 0) >= service.killedAt - 2_000 &&
        (entry.answeredAt ?? 0) <= service.restartedAt);
    const expectedWebhooks = new Set(answered.filter(([, entry]) => !excused(entry)).map(([id]) => id));
    const drainDeadline = Date.now() + 30_000;
    while (receiver.received.length < expectedWebhooks.size && Date.now() < drainDeadline) await sleep(200);

    // What each created request reads as now, read once; every request the run drove is one it created.
    const stateOf = new Map<string, string>();
    // Each answered request's auth_jwe, to tell which request a webhook answers.
    const requestOfJwe = new Map<string, string>();
    for (const id of [...created.values()].flat()) {
      stateOf.set(id, await finalState(organization, subject, id, requestOfJwe));
    }
    const wrongFinalStates: string[] = [];
    for (const [id, entry] of outcomes) {
      const state = stateOf.get(id);
      if (state !== entry.outcome) wrongFinalStates.push(`${id}: ${entry.outcome} but reads ${state}`);
    }
    const usersWithTwoPending: string[] = [];
    for (const [user, ids] of created) {
      const pending = ids.filter((id) => stateOf.get(id) === 'pending').length;
      if (pending > 1) usersWithTwoPending.push(user);
    }
    const runtimeRecord = await runningRuntime(dataDir);
    if (!runtimeRecord) throw new Error('the service process wrote no runtime record');
    const sqs = new SQSClient(engineClientConfig(runtimeRecord.sqsEndpoint));
    const deadLetters = await listDeadLetters(sqs, runtimeRecord).finally(() => sqs.destroy());
    const receivedIds = new Set(
      receiver.received.flatMap((webhook) => {
        const id = requestOfJwe.get(String(webhook.body.auth_jwe));
        return id ? [id] : [];
      }),
    );
    const endMemory = (await residentMb(service.current.child.pid)) ?? 0;
    const counts = { answered: 0, cancelled: 0, expired: 0 };
    for (const entry of outcomes.values()) counts[entry.outcome]++;
    const report: Omit<SoakReport, 'ok'> = {
      seconds: options.seconds,
      users: options.users,
      concurrency: options.concurrency,
      flows,
      flowsPerSecond: Math.round((flows / elapsed) * 10) / 10,
      requests: counts,
      busyRefusals,
      interruptedFlows,
      downtimeMs: service.restartedAt - service.killedAt,
      wrongFinalStates,
      usersWithTwoPending,
      webhooks: {
        expected: expectedWebhooks.size,
        received: [...receivedIds].filter((id) => expectedWebhooks.has(id)).length,
        rejected: receiver.rejected.length,
        rejections: [...receiver.rejected],
        unchecked: receiver.unchecked.length,
        excusedByRestart: answered.length - expectedWebhooks.size,
        excusedButReceived: answered.filter(([id]) => !expectedWebhooks.has(id) && receivedIds.has(id))
          .length,
      },
      deadLetters: deadLetters.length,
      memoryMb: {
        start: startMemory,
        end: endMemory,
        max: Math.max(startMemory, endMemory, ...memory.map((sample) => sample.mb)),
        every10s: memory.filter((_, index) => index % 20 === 19).map((sample) => sample.mb),
        flat: heldLevel(
          memory.filter(
            (sample) => sample.epoch === service.epoch && sample.at >= started && sample.at <= loadEnded,
          ),
        ),
      },
      errors,
    };
    return {
      ...report,
      ok:
        errors.length === 0 &&
        wrongFinalStates.length === 0 &&
        usersWithTwoPending.length === 0 &&
        report.webhooks.received === report.webhooks.expected &&
        report.webhooks.rejected === 0 &&
        deadLetters.length === 0 &&
        report.memoryMb.flat !== false,
    };
  } finally {
    clearInterval(sampler);
    await receiver.close();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** What GET says of a request now; an answered one's auth_jwe is noted in `requestOfJwe`. */
async function finalState(
  organization: ApiClient,
  subject: string,
  id: string,
  requestOfJwe: Map<string, string>,
): Promise<string> {
  try {
    const read = await organization.call<{ auth_jwe: string }>('GET', `/service/v3/auths/${id}`, { subject });
    if (read.status === 200 && read.body) requestOfJwe.set(read.body.auth_jwe, id);
    return read.status === 200 ? 'answered' : read.status === 204 ? 'pending' : `status ${read.status}`;
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 408) return 'expired';
    if (error instanceof ApiRequestError && error.errorCode === 'SVC-007') return 'cancelled';
    throw error;
  }
}

/** See SoakReport.memoryMb.flat. */
function heldLevel(samples: readonly { at: number; mb: number }[]): boolean | null {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.at - first.at < 60_000) return null;
  const settled = samples.slice(Math.floor(samples.length / 5));
  const half = Math.floor(settled.length / 2);
  const most = (part: readonly { mb: number }[]) => Math.max(...part.map((sample) => sample.mb));
  return most(settled.slice(half)) <= most(settled.slice(0, half)) * 1.2 + 16;
}

async function residentMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

async function scene(
  organization: ApiClient,
  baseUrl: string,
  callbackUrl: string,
  users: number,
  dataDir: string,
) {
  const tenant = await setUpTenant(organization, baseUrl, { name: 'Soak', callbackUrl });
  await liftRateLimit(tenant.directoryId, dataDir);
  const devices = new Map<string, Authenticator>();
  for (let index = 0; index < users; index++) {
    const user = `user-${index}`;
    devices.set(user, await tenant.linkUser(user));
  }
  return { subject: tenant.subject, devices };
}
