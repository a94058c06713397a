import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import type { ConsoleRole } from '#shared/domain/console-admin';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { type PushReceiver, startPushReceiver } from '#test/support/push-receiver';
import { quickPushWorker } from '#test/support/push-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { until } from '#test/support/waiting';
import { SoftwareAuthenticator } from '#test/support/webauthn-authenticator';

/**
 * The console's health (docs/console.md#health) over real HTTP against the local runtime: a push the worker delivers
 * is counted in its organization's health and in no other's; the operator alone reads and redrives dead letters.
 */
let runtime: TestRuntime;
let origin: string;
let scene: AuthScene;
let receiver: PushReceiver;
let phone: Authenticator;
let store: typeof import('#test/integration/console/console-store');
let stage: typeof import('#test/integration/console/console-stage');

beforeAll(async () => {
  Object.assign(process.env, quickPushWorker);
  runtime = await startTestRuntime();
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
  store = await import('#test/integration/console/console-store');
  stage = await import('#test/integration/console/console-stage');
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

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

async function call(
  method: string,
  path: string,
  options: { cookie?: string; csrf?: string; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(`${origin}/console/api${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const refusal = (answer: Answer) => ({ status: answer.status, code: answer.body?.error_code });

/** A signed-in admin of `role` in `organizationId` (none: the operator), as the page holds the session. */
async function signedIn(
  role: ConsoleRole,
  organizationId: string | null,
): Promise<{ cookie: string; csrf: string }> {
  const invite = await store.invite(organizationId, role, origin);
  const token = new URL(invite.url).hash.replace(/^#invite=/, '');
  const authenticator = new SoftwareAuthenticator(origin);
  const options = await call('POST', '/enrolment/options', { body: { invite: token } });
  const registration = authenticator.register(
    options.body as unknown as PublicKeyCredentialCreationOptionsJSON,
  );
  const enrolled = await call('POST', '/enrolment', {
    body: { invite: token, name: `${role} of the health test`, registration },
  });
  expect(enrolled.status).toBe(201);
  const signInOptions = await call('POST', '/sign-in/options');
  const { challenge, rpId } = signInOptions.body as { challenge: string; rpId: string };
  const assertion = authenticator.assert({ challenge, rp_id: rpId });
  const response = await fetch(`${origin}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ assertion }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { csrf_token: string };
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
  if (role !== 'auditor') await stage.approveSessionForTest(cookie);
  return { cookie, csrf: body.csrf_token };
}

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
    const auditor = await signedIn('auditor', scene.organization.id);
    const otherAuditor = await signedIn('auditor', runtime.organizationId);
    const before = await call('GET', '/health?hours=24', auditor);
    expect(before.status).toBe(200);
    const sentBefore = webpushOf(before).sent;
    const otherBefore = webpushOf(await call('GET', '/health', otherAuditor)).sent;

    const created = await scene.ask({ username: 'alice' });
    await receiver.waitFor(
      (each) => each.subscription === 'phone' && each.payload.auth_request === created.auth_request,
    );
    const after = await until(async () => {
      const answer = await call('GET', '/health?hours=24', auditor);
      return webpushOf(answer).sent > sentBefore ? answer : undefined;
    });
    expect(after.body).toMatchObject({ organization_id: scene.organization.id, bucket_seconds: 300 });
    expect(webpushOf(after)).toMatchObject({ sent: sentBefore + 1, failed: 0 });
    expect(webpushOf(after).p95_ms).toBeGreaterThan(0);
    expect((after.body?.buckets as unknown[]).length).toBeGreaterThan(0);
    expect(webpushOf(await call('GET', '/health', otherAuditor)).sent).toBe(otherBefore);
  }, 30_000);

  it('lets the operator choose the organization; another organization’s id is unknown to its admins', async () => {
    const operator = await signedIn('operator', null);
    const chosen = await call('GET', `/health?organization_id=${scene.organization.id}`, operator);
    expect(chosen.status).toBe(200);
    expect(webpushOf(chosen).sent).toBeGreaterThan(0);
    const auditor = await signedIn('auditor', runtime.organizationId);
    expect(refusal(await call('GET', `/health?organization_id=${scene.organization.id}`, auditor))).toEqual({
      status: 404,
      code: 'CON-004',
    });
  });

  it('bounds the range it reads', async () => {
    const auditor = await signedIn('auditor', scene.organization.id);
    for (const hours of ['0', '169', 'x', '1.5']) {
      expect(refusal(await call('GET', `/health?hours=${hours}`, auditor))).toEqual({
        status: 400,
        code: 'ARG-001',
      });
    }
  });
});
