import { createPrivateKey } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { keyId } from '#shared/protocol/kid';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { type Fault, injectFaults, refused, timedOut } from '#test/support/sdk-faults';
import { refusal } from '#test/support/tree';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver';

/**
 * The store and the queue failing under real requests: the AWS SDK clients of this process are made to fail their
 * sends (a refused connection, as when the engine is down, unless told otherwise) from a chosen call on.
 */
const failures = { refused, 'timed out': timedOut };

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;
let receiver: WebhookReceiver;
let storeFault: Fault | undefined;
let queueFault: Fault | undefined;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  alice = await scene.linkDevice('alice');
  const organizationKey = createPrivateKey(scene.organization.privateKeyPem);
  receiver = await startWebhookReceiver({
    apiBaseUrl: runtime.baseUrl,
    keys: new Map([
      [scene.serviceKey.kid, scene.serviceKey.privateKey],
      [keyId(organizationKey), organizationKey],
    ]),
  });
  await scene.organization.client.call('PATCH', '/directory/v3/services', {
    subject: `dir:${scene.directoryId}`,
    body: { service_id: scene.serviceId, callback_url: receiver.url('/hooks') },
  });
  const { dynamo } = await import('#shared/store/dynamo');
  const { queueClient } = await import('#shared/events/queue-client');
  injectFaults(dynamo, () => storeFault, 'storeFault');
  injectFaults(queueClient, () => queueFault, 'queueFault');
});
afterEach(() => {
  storeFault = undefined;
  queueFault = undefined;
});
afterAll(async () => {
  await receiver?.close();
  await runtime?.stop();
});

async function answerPending(): Promise<string> {
  const [pending] = await alice.pending();
  if (!pending) throw new Error('nothing pending');
  await alice.answer(pending, { approve: true });
  return pending.auth_request;
}

describe.each(['refused', 'timed out'] as const)('a store whose every request is %s', (as) => {
  it.each([
    ['create an auth request', () => scene.ask({ username: 'alice' })],
    ['poll', () => scene.read(crypto.randomUUID())],
    ['list directories', () => scene.organization.client.call('GET', '/organization/v3/directories')],
    ['list on the device', () => alice.pending()],
  ])('makes %s a 503 whose response JWT verifies', async (_, call) => {
    storeFault = { passes: 0, failures: Number.POSITIVE_INFINITY, error: failures[as] };
    const error = await refusal(call());
    // The client checked the JWT before it raised the error: a 503 without one would be a ResponseVerificationError.
    expect(error).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
    expect(String(error.errorDetail)).toBe('The store is unavailable; retry the request');
  });
});

describe('a request whose jti the store recorded but whose answer it lost', () => {
  it('is answered, not refused as a replay: the SDK sends the same record again and it is accepted', async () => {
    storeFault = { passes: 0, failures: 1, only: /PutItem/, error: timedOut, answerLost: true };
    const response = await scene.organization.client.call('GET', '/organization/v3/directories');
    expect(storeFault).toMatchObject({ failures: 0 });
    expect(response.status).toBe(200);
  });
});

describe('a store that fails in the middle of creating an auth request', () => {
  /** One attempt to ask alice, as data: the request it made or names as holding her, or the refusal. */
  async function attempt(): Promise<{ status: number; errorCode?: string; authRequest?: string }> {
    return scene.ask({ username: 'alice' }).then(
      (created) => ({ status: 200, authRequest: created.auth_request }),
      (error: unknown) => {
        if (!(error instanceof ApiRequestError)) throw error;
        const holder = error.errorData?.auth_request;
        return {
          status: error.status,
          errorCode: error.errorCode,
          ...(typeof holder === 'string' ? { authRequest: holder } : {}),
        };
      },
    );
  }

  it('never blocks the user beyond what the failed attempt made: cancelling it frees them', async () => {
    for (let passes = 0; passes < 8; passes++) {
      storeFault = { passes, failures: Number.POSITIVE_INFINITY, error: refused };
      const first = await attempt();
      storeFault = undefined;
      // Either the outage began after the request was complete, or the attempt failed with a 503.
      expect([200, 503]).toContain(first.status);
      if (first.authRequest) await scene.service.call('DELETE', `/service/v3/auths/${first.authRequest}`);
      // The store is back: the user can be asked at once, or is held by the attempt's own request, which the
      // service names and can cancel.
      const retried = await attempt();
      expect([
        { status: 200, errorCode: undefined },
        { status: 409, errorCode: 'SVC-005' },
      ]).toContainEqual({ status: retried.status, errorCode: retried.errorCode });
      await scene.service.call('DELETE', `/service/v3/auths/${retried.authRequest}`);
      const again = await scene.ask({ username: 'alice' });
      await scene.service.call('DELETE', `/service/v3/auths/${again.auth_request}`);
    }
  });
});

describe('a queue that refuses to take an event', () => {
  it("fails the device's answer, which the device sends again: recorded once, announced once it is queued", async () => {
    const created = await scene.ask({ username: 'alice' });
    // The first send fails; the authenticator resends the same packages and the second send goes through.
    queueFault = { passes: 0, failures: 1, only: /SendMessage/, error: refused };
    const answered = await answerPending();
    expect(answered).toBe(created.auth_request);
    expect(queueFault).toMatchObject({ failures: 0 });
    const read = await scene.read(created.auth_request);
    expect(read.status).toBe(200);
    const webhook = await receiver.waitFor((each) => each.body.auth_jwe === read.body?.auth_jwe);
    expect(webhook.body.type).toBe('AUTHORIZATION_RESPONSE');
  });

  it('leaves the answer recorded while the queue stays down, and the device sees a 503', async () => {
    const created = await scene.ask({ username: 'alice' });
    queueFault = { passes: 0, failures: Number.POSITIVE_INFINITY, only: /SendMessage/, error: refused };
    expect(await refusal(answerPending())).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
    queueFault = undefined;
    // Polling works without the event; the user is free again.
    expect((await scene.read(created.auth_request)).status).toBe(200);
    const next = await scene.ask({ username: 'alice' });
    await scene.service.call('DELETE', `/service/v3/auths/${next.auth_request}`);
  });
});

describe('clock skew between a client and the service', () => {
  /** A client whose clock is `skewSeconds` off: it stamps its tokens with that error and never corrects it. */
  function skewed(skewSeconds: number): ApiClient {
    return new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `svc:${scene.serviceId}`,
      privateKeyPem: scene.serviceKey.privatePem,
      fetch: async (input, init) => {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (url.endsWith('/public/v3/ping')) {
          return Response.json({ api_time: new Date(Date.now() + skewSeconds * 1000).toISOString() });
        }
        return fetch(input, init);
      },
    });
  }

  it.each([-25, 25])('is absorbed within the leeway (%i s)', async (skew) => {
    expect((await skewed(skew).call('GET', `/service/v3/auths/${crypto.randomUUID()}`)).status).toBe(204);
  });

  it.each([-90, 90, 3600])('is refused beyond it (%i s) with AUTH-004', async (skew) => {
    const error = await skewed(skew)
      .call('GET', `/service/v3/auths/${crypto.randomUUID()}`)
      .catch((caught: unknown) => caught);
    // The service refuses the token; the skewed client may also distrust the answer's times. Either way: refused.
    const refused =
      error instanceof ApiRequestError ? `${error.status} ${error.errorCode}` : (error as Error).name;
    expect(['401 AUTH-004', 'ResponseVerificationError']).toContain(refused);
  });
});
