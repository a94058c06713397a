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
