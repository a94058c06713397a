import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { type PushReceiver, startPushReceiver } from '#test/support/push-receiver';
import { quickPushWorker } from '#test/support/push-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { until } from '#test/support/waiting';
import { type Answer, refusal } from '#test/integration/console/console-client';

/**
 * The console's health (docs/console.md#health) over real HTTP against the local runtime: a push the worker delivers
 * is counted in its organization's health and in no other's; the operator alone reads and redrives dead letters.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let receiver: PushReceiver;
let phone: Authenticator;
let client: Awaited<ReturnType<typeof import('#test/integration/console/console-client').consoleClient>>;

beforeAll(async () => {
  Object.assign(process.env, quickPushWorker);
  runtime = await startTestRuntime();
  client = await (await import('#test/integration/console/console-client')).consoleClient(runtime);
  scene = await newAuthScene(runtime);
  receiver = await startPushReceiver();
  phone = await scene.linkDevice('alice');
  const status = (
    await deviceClient(runtime.baseUrl, phone).call('PUT', '/device/v3/push', {
      body: { webpush: receiver.subscribe('phone').json },
    })
  ).status;
  if (status !== 204) throw new Error(`The phone's push channel was refused: ${status}`);
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

interface PushFigures {
  sent: number;
  failed: number;
  gone: number;
  p95_ms: number | null;
}
const webpushOf = (answer: Answer) =>
  (answer.body?.totals as { pushes: Record<string, PushFigures> }).pushes.webpush as PushFigures;

const authOf = (answer: Answer) => {
  const totals = answer.body?.totals as {
    auth_requests: Record<'answered' | 'denied' | 'failed' | 'expired' | 'cancelled', number>;
    approval_latency_ms: { p50: number | null; p95: number | null };
  };
  return { counts: totals.auth_requests, latency: totals.approval_latency_ms };
};

describe('health', () => {
  it('counts a delivered push in its organization’s health, and in no other organization’s', async () => {
    const auditor = await client.signedIn('auditor', scene.organization.id);
    const otherAuditor = await client.signedIn('auditor', runtime.organizationId);
    const before = await client.call('GET', '/health?hours=24', { session: auditor });
    expect(before.status).toBe(200);
    const sentBefore = webpushOf(before).sent;
    const otherBefore = webpushOf(await client.call('GET', '/health', { session: otherAuditor })).sent;

    const created = await scene.ask({ username: 'alice' });
    await receiver.waitFor(
      (each) => each.subscription === 'phone' && each.payload.auth_request === created.auth_request,
    );
    const after = await until(async () => {
      const answer = await client.call('GET', '/health?hours=24', { session: auditor });
      return webpushOf(answer).sent > sentBefore ? answer : undefined;
    });
    expect(after.body).toMatchObject({ organization_id: scene.organization.id, bucket_seconds: 300 });
    expect(webpushOf(after)).toMatchObject({ sent: sentBefore + 1, failed: 0 });
    expect(webpushOf(after).p95_ms).toBeGreaterThan(0);
    expect((after.body?.buckets as unknown[]).length).toBeGreaterThan(0);
    expect(webpushOf(await client.call('GET', '/health', { session: otherAuditor })).sent).toBe(otherBefore);
  }, 30_000);

  it('counts each auth request once it is over, by outcome and with the time to the user’s answer, in its organization alone', async () => {
    const auditor = await client.signedIn('auditor', scene.organization.id);
    const otherAuditor = await client.signedIn('auditor', runtime.organizationId);
    const before = authOf(await client.call('GET', '/health', { session: auditor }));
    const otherBefore = authOf(await client.call('GET', '/health', { session: otherAuditor }));

    // One user's requests one after another (each ends before the next), counted from the expiry's message even
    // though the user's device has no push channel.
    const ttl = 30;
    const tablet = await scene.linkDevice('bob');
    const pendingOf = async (id: string) =>
      until(async () => (await tablet.pending()).find((each) => each.auth_request === id));
    const approved = await scene.ask({ username: 'bob', ttl });
    await tablet.answer(await pendingOf(approved.auth_request), { approve: true });
    const denied = await scene.ask({ username: 'bob', ttl, number_matching: true });
    await tablet.answer(await pendingOf(denied.auth_request), { approve: false });
    const cancelled = await scene.ask({ username: 'bob', ttl });
    expect(
      (
        await scene.service.call('DELETE', `/service/v3/auths/${cancelled.auth_request}`, {
          subject: `svc:${scene.serviceId}`,
        })
      ).status,
    ).toBe(204);
    await scene.ask({ username: 'bob', ttl });

    const expected = {
      ...before.counts,
      answered: before.counts.answered + 1,
      denied: before.counts.denied + 1,
      expired: before.counts.expired + 1,
      cancelled: before.counts.cancelled + 1,
    };
    const after = await until(
      async () => {
        const now = authOf(await client.call('GET', '/health', { session: auditor }));
        return now.counts.expired > before.counts.expired && now.counts.answered > before.counts.answered
          ? now
          : undefined;
      },
      (ttl + 30) * 1000,
      () => 'the requests were not counted',
    );
    expect(after.counts).toEqual(expected);
    expect(after.latency.p50).toBeGreaterThan(0);
    expect(after.latency.p95).toBeGreaterThanOrEqual(after.latency.p50 as number);
    expect(authOf(await client.call('GET', '/health', { session: otherAuditor }))).toEqual(otherBefore);
  }, 90_000);

  it('lets the operator choose the organization; another organization’s id is unknown to its admins', async () => {
    const operator = await client.signedIn('operator', null);
    const chosen = await client.call('GET', `/health?organization_id=${scene.organization.id}`, {
      session: operator,
    });
    expect(chosen.status).toBe(200);
    expect(webpushOf(chosen).sent).toBeGreaterThan(0);
    const auditor = await client.signedIn('auditor', runtime.organizationId);
    expect(
      refusal(
        await client.call('GET', `/health?organization_id=${scene.organization.id}`, { session: auditor }),
      ),
    ).toEqual({
      status: 404,
      code: 'CON-004',
    });
  });

  it('bounds the range it reads', async () => {
    const auditor = await client.signedIn('auditor', scene.organization.id);
    for (const hours of ['0', '169', 'x', '1.5']) {
      expect(refusal(await client.call('GET', `/health?hours=${hours}`, { session: auditor }))).toEqual({
        status: 400,
        code: 'ARG-001',
      });
    }
  });
});
