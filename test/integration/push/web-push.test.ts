import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig } from '#infra/local/engines';
import { type Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { ApiRequestError } from '#shared/client/errors';
import {
  type DeadLetter,
  listDeadLetters,
  pushMessages,
  redriveDeadLetters,
} from '#shared/events/dead-letters';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { type PushReceiver, startPushReceiver, type TestSubscription } from '#test/support/push-receiver';
import { quickPushWorker } from '#test/support/push-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { until } from '#test/support/waiting';

let runtime: TestRuntime;
let scene: AuthScene;
let receiver: PushReceiver;
let sqs: SQSClient;
let phone: Authenticator;
let tablet: Authenticator;
const subject = () => ({ subject: `svc:${scene.serviceId}` });

/** PUT /device/v3/push: its status, and the error code of a refusal. */
async function register(
  device: Authenticator,
  subscription: TestSubscription | Record<string, unknown>,
): Promise<{ status: number; errorCode?: string | undefined }> {
  const body = 'json' in subscription ? { webpush: subscription.json } : subscription;
  try {
    return {
      status: (await deviceClient(runtime.baseUrl, device).call('PUT', '/device/v3/push', { body })).status,
    };
  } catch (error) {
    if (!(error instanceof ApiRequestError)) throw error;
    return { status: error.status, errorCode: error.errorCode };
  }
}

async function channelOf(device: Authenticator): Promise<string | null> {
  const { body } = await deviceClient(runtime.baseUrl, device).call<{ channel: string | null }>(
    'GET',
    '/device/v3/push',
  );
  return body?.channel ?? null;
}

/** Cancels, and waits for the prompt to come down wherever it went up, so the next test starts with a quiet queue. */
async function cancel(authRequest: string): Promise<void> {
  await scene.service.call('DELETE', `/service/v3/auths/${authRequest}`, subject());
  const prompted = new Set(
    receiver.received
      .filter((each) => each.payload.auth_request === authRequest && each.status === 201)
      .map((each) => each.subscription),
  );
  for (const name of prompted) {
    await receiver.waitFor(
      (each) =>
        each.subscription === name &&
        each.payload.auth_request === authRequest &&
        each.payload.type === 'auth_request_ended',
    );
  }
}

const pushesFor = (name: string, authRequest: string, type?: string) =>
  receiver.received.filter(
    (push) =>
      push.subscription === name &&
      push.payload.auth_request === authRequest &&
      (type === undefined || push.payload.type === type),
  );

beforeAll(async () => {
  Object.assign(process.env, {
    ...quickPushWorker,
  });
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  receiver = await startPushReceiver();
  sqs = new SQSClient(engineClientConfig(runtime.runtime.engines.sqsEndpoint));
  phone = await scene.linkDevice('alice');
  tablet = await scene.linkDevice('alice');
}, 60_000);
afterAll(async () => {
  sqs?.destroy();
  await receiver?.close();
  await runtime?.stop();
});

describe('registering a push channel', () => {
  it('serves the VAPID public key to a linked device, and no channel until one is registered', async () => {
    const { status, body } = await deviceClient(runtime.baseUrl, phone).call<{
      vapid_public_key: string;
      channel: null;
    }>('GET', '/device/v3/push');
    expect(status).toBe(200);
    expect(body?.channel).toBeNull();
    const point = Buffer.from(body?.vapid_public_key ?? '', 'base64url');
    expect([point.length, point[0]]).toEqual([65, 4]);
  });

  it('refuses a subscription whose keys are not a P-256 point and a 16-byte secret', async () => {
    const good = receiver.subscribe('malformed').json;
    for (const keys of [
      { ...good.keys, auth: Buffer.alloc(15).toString('base64url') },
      { ...good.keys, p256dh: Buffer.alloc(65, 2).toString('base64url') },
      { ...good.keys, p256dh: 'not base64url!' },
    ]) {
      const answer = await register(phone, { webpush: { ...good, keys } });
      expect(answer).toEqual({ status: 400, errorCode: 'ARG-001' });
    }
  });

  it('refuses an endpoint the webhook address guard refuses', async () => {
    const { keys } = receiver.subscribe('guarded').json;
    for (const endpoint of [
      'https://169.254.169.254/push',
      'https://10.0.0.1/push',
      'ftp://push.example.com/x',
    ]) {
      const answer = await register(phone, { webpush: { endpoint, keys } });
      expect({ endpoint, ...answer }).toEqual({ endpoint, status: 400, errorCode: 'ARG-001' });
    }
    expect(await channelOf(phone)).toBeNull();
  });

  it('stores a channel, replaces it, and removes it on DELETE', async () => {
    expect((await register(phone, receiver.subscribe('phone-old'))).status).toBe(204);
    expect(await channelOf(phone)).toBe('webpush');
    expect((await deviceClient(runtime.baseUrl, phone).call('DELETE', '/device/v3/push')).status).toBe(204);
    expect(await channelOf(phone)).toBeNull();
    expect((await deviceClient(runtime.baseUrl, phone).call('DELETE', '/device/v3/push')).status).toBe(204);
  });
});

describe('pushing', () => {
  beforeAll(async () => {
    await register(phone, receiver.subscribe('phone'));
    await register(tablet, receiver.subscribe('tablet'));
  });

  it('prompts every device with a channel: VAPID-signed, encrypted to the subscription, collapsing per request', async () => {
    const created = await scene.ask({
      username: 'alice',
      push_title: 'Sign in?',
      push_body: 'Acme wants to know',
    });
    const push = await receiver.waitFor(
      (each) => each.subscription === 'phone' && each.payload.auth_request === created.auth_request,
    );
    await receiver.waitFor(
      (each) => each.subscription === 'tablet' && each.payload.auth_request === created.auth_request,
    );
    // A declarative push message (shown by Safari even with its worker evicted) that carries today's fields beside.
    const page = new URL(runtime.baseUrl);
    page.hostname = 'localhost';
    expect(push.payload).toEqual({
      web_push: 8030,
      notification: {
        title: 'Sign in?',
        body: 'Acme wants to know',
        tag: created.auth_request,
        navigate: `${page.origin}/authenticator/#request=${created.auth_request}`,
        require_interaction: true,
      },
      mutable: true,
      type: 'auth_request',
      auth_request: created.auth_request,
      title: 'Sign in?',
      body: 'Acme wants to know',
      tag: created.auth_request,
    });
    expect(push.claims).toMatchObject({ aud: receiver.origin, sub: 'mailto:security@example.org' });
    const { body } = await deviceClient(runtime.baseUrl, phone).call<{ vapid_public_key: string }>(
      'GET',
      '/device/v3/push',
    );
    expect(push.vapidKey).toBe(body?.vapid_public_key);
    expect(push.headers.topic).toBe(created.auth_request.replace(/-/g, ''));
    expect(push.headers.urgency).toBe('high');
    const ttl = Number(push.headers.ttl);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    expect(receiver.rejected).toEqual([]);
    await cancel(created.auth_request);
  });

  it('takes the prompt down on the other devices when one answers, with a visible line', async () => {
    const created = await scene.ask({ username: 'alice' });
    await receiver.waitFor(
      (each) => each.subscription === 'tablet' && each.payload.auth_request === created.auth_request,
    );
    const prompt =
      pushesFor('phone', created.auth_request, 'auth_request')[0] ??
      (await receiver.waitFor(
        (each) => each.subscription === 'phone' && each.payload.auth_request === created.auth_request,
      ));
    expect(prompt.payload).toMatchObject({
      title: expect.any(String),
      body: 'Approve or deny the sign-in request',
    });
    const [pending] = await phone.pending();
    if (!pending) throw new Error('nothing pending');
    await phone.answer(pending, { approve: true });
    const ended = await receiver.waitFor(
      (each) =>
        each.subscription === 'tablet' &&
        each.payload.auth_request === created.auth_request &&
        each.payload.type === 'auth_request_ended',
    );
    expect(ended.payload).toMatchObject({ body: 'Answered on another device', tag: created.auth_request });
    expect(ended.headers.topic).toBe(created.auth_request.replace(/-/g, ''));
    expect(pushesFor('phone', created.auth_request, 'auth_request_ended')).toEqual([]);
  });

  it('takes the prompt down on every device when the service cancels', async () => {
    const created = await scene.ask({ username: 'alice' });
    await receiver.waitFor(
      (each) => each.subscription === 'phone' && each.payload.auth_request === created.auth_request,
    );
    await receiver.waitFor(
      (each) => each.subscription === 'tablet' && each.payload.auth_request === created.auth_request,
    );
    await cancel(created.auth_request);
    for (const name of ['phone', 'tablet']) {
      const ended = await receiver.waitFor(
        (each) =>
          each.subscription === name &&
          each.payload.auth_request === created.auth_request &&
          each.payload.type === 'auth_request_ended',
      );
      expect(ended.payload.body).toBe('Cancelled');
    }
  });

  it('removes a channel the push service says is gone (404, 410)', async () => {
    for (const status of [410, 404]) {
      const name = `tablet-${status}`;
      await register(tablet, receiver.subscribe(name));
      receiver.answer(name, status);
      const created = await scene.ask({ username: 'alice' });
      await until(async () => ((await channelOf(tablet)) === null ? true : undefined));
      expect(receiver.requests.filter((request) => request.subscription === name)).toHaveLength(1);
      await cancel(created.auth_request);
    }
    await register(tablet, receiver.subscribe('tablet'));
  });

  it('answers the create 201 during a push outage, retries with backoff, and dead-letters with the reason', async () => {
    receiver.answer('phone', 503, { status: 429, retryAfter: '1' }, 503);
    const created = await scene.service.call<{ auth_request: string }>('POST', '/service/v3/auths', {
      ...subject(),
      body: { username: 'alice' },
    });
    expect(created.status).toBe(201);
    const authRequest = created.body?.auth_request as string;
    expect((await phone.pending()).map((each) => each.auth_request)).toEqual([authRequest]);
    const letter = await until(async () =>
      (await listDeadLetters(sqs, runtime.runtime.pushQueues, 1000, pushMessages)).find(
        (each: DeadLetter) => each.event?.authRequestId === authRequest,
      ),
    );
    expect(letter).toMatchObject({
      event: { kind: 'prompt', authRequestId: authRequest, deviceId: phone.state.deviceId },
      attempts: 3,
      reason: 'gave up after 3 attempts: the push service answered 503',
    });
    expect(receiver.requests.filter((request) => request.subscription === 'phone').slice(-3)).toEqual(
      [503, 429, 503].map((status) => ({ subscription: 'phone', status })),
    );
    // The tablet was not held back by the phone's outage, and got its prompt once.
    expect(
      pushesFor('tablet', authRequest, 'auth_request').filter((push) => push.status === 201),
    ).toHaveLength(1);

    // Redriven once the push service is back: the phone gets its prompt, and the tablet no second one.
    const moved = await redriveDeadLetters(
      sqs,
      runtime.runtime.pushQueues,
      new Set([letter.messageId]),
      pushMessages,
    );
    expect(moved).toHaveLength(1);
    await receiver.waitFor(
      (each) =>
        each.subscription === 'phone' && each.payload.auth_request === authRequest && each.status === 201,
    );
    expect(pushesFor('tablet', authRequest, 'auth_request')).toHaveLength(1);
    await cancel(authRequest);
  }, 30_000);

  it('answers the create 201 when the push queue itself is down; the device still finds the request', async () => {
    const queueUrl = process.env.PUSH_QUEUE_URL;
    process.env.PUSH_QUEUE_URL = `${runtime.runtime.engines.sqsEndpoint}/000000000000/no-such-queue`;
    try {
      const created = await scene.service.call<{ auth_request: string }>('POST', '/service/v3/auths', {
        ...subject(),
        body: { username: 'alice' },
      });
      expect(created.status).toBe(201);
      const authRequest = created.body?.auth_request as string;
      expect((await phone.pending()).map((each) => each.auth_request)).toEqual([authRequest]);
      expect(pushesFor('phone', authRequest)).toEqual([]);
      await scene.service.call('DELETE', `/service/v3/auths/${authRequest}`, subject());
    } finally {
      process.env.PUSH_QUEUE_URL = queueUrl;
    }
  });

  it('does not retry a push the push service refused for good (another 4xx)', async () => {
    receiver.answer('phone', 400);
    const created = await scene.ask({ username: 'alice' });
    const letter = await until(async () =>
      (await listDeadLetters(sqs, runtime.runtime.pushQueues, 1000, pushMessages)).find(
        (each) => each.event?.authRequestId === created.auth_request,
      ),
    );
    expect(letter).toMatchObject({ attempts: 1, reason: 'the push service answered 400' });
    expect(await channelOf(phone)).toBe('webpush');
    await cancel(created.auth_request);
  });
});

describe('the push worker', () => {
  it('pushes nothing twice for a redelivered message, and shows "Expired" when the request ends by time', async () => {
    const { deliverPush } = await import('#shared/use-cases/deliver-push');
    const { pushWorkerSettings } = await import('#shared/push/settings');
    const settings = pushWorkerSettings();
    const created = await scene.ask({ username: 'alice', ttl: 30 });
    for (const name of ['phone', 'tablet']) {
      await receiver.waitFor(
        (each) => each.subscription === name && each.payload.auth_request === created.auth_request,
      );
    }
    const before = receiver.requests.length;
    expect(await deliverPush({ kind: 'prompt', authRequestId: created.auth_request }, settings)).toEqual({
      outcome: 'nothing',
      why: 'every device was reached already',
    });
    expect(receiver.requests).toHaveLength(before);

    // The message the create queued with a delay of the request's ttl, as it arrives then.
    const later = new Date(Date.now() + 31_000);
    const ended = await deliverPush({ kind: 'ended', authRequestId: created.auth_request }, settings, {
      now: later,
    });
    expect(ended).toMatchObject({
      outcome: 'attempted',
      attempts: [{ outcome: 'delivered' }, { outcome: 'delivered' }],
    });
    for (const name of ['phone', 'tablet']) {
      const push = await receiver.waitFor(
        (each) =>
          each.subscription === name &&
          each.payload.auth_request === created.auth_request &&
          each.payload.type === 'auth_request_ended',
      );
      expect(push.payload.body).toBe('Expired');
    }
  });
});

describe('a new device of the user', () => {
  it('is announced to the devices that may confirm it, with a visible line that names neither', async () => {
    expect((await register(phone, receiver.subscribe('phone-link'))).status).toBe(204);
    const started = await scene.organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
      subject: `dir:${scene.directoryId}`,
      body: { identifier: 'alice' },
    });
    const joining = await linkAuthenticator({ baseUrl: runtime.baseUrl, code: started.body?.code as string });
    const push = await receiver.waitFor(
      (each) => each.subscription === 'phone-link' && each.payload.device_id === joining.deviceId,
    );
    const page = new URL(runtime.baseUrl);
    page.hostname = 'localhost';
    expect(push.payload).toEqual({
      web_push: 8030,
      notification: {
        title: 'A new device wants to join',
        body: 'Approve or refuse it in the app',
        tag: joining.deviceId,
        navigate: `${page.origin}/authenticator/`,
        require_interaction: true,
      },
      mutable: true,
      type: 'device_link_request',
      device_id: joining.deviceId,
      title: 'A new device wants to join',
      body: 'Approve or refuse it in the app',
      tag: joining.deviceId,
    });
    expect(push.headers.urgency).toBe('high');
    await phone.answerLinkRequest(joining.deviceId, false);
  });
});
