import { createPrivateKey, type KeyObject } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig } from '#infra/local/engines';
import { lambdaContext } from '#infra/local/lambda-context';
import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { type DeviceConfiguration, defaultConfiguration } from '#shared/authenticator/state';
import { ApiClient } from '#shared/client/api-client';
import type { AuthAnswer, AuthRequest } from '#shared/domain/auth-request';
import {
  type DeadLetter,
  listDeadLetters,
  redriveDeadLetters,
  type WebhookQueueUrls,
} from '#shared/events/dead-letters';
import { keyId } from '#shared/protocol/kid';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { rsaKeyPair } from '#test/support/keys';
import { amountPolicy, denialReasons, inherencePolicy, withMethod } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '#test/support/webhook-receiver';

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;
let receiver: WebhookReceiver;
let sqs: SQSClient;
let queues: WebhookQueueUrls;
let organizationKey: KeyObject;
/** The keys the application holds; a test adds one as the application gets it. */
const receiverKeys = new Map<string, KeyObject>();

beforeAll(async () => {
  // Fast retries, few attempts, a short timeout, and loopback allowed only at 127.0.0.1.
  Object.assign(process.env, {
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_MAX_ATTEMPTS: '3',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
  });
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  organizationKey = createPrivateKey(scene.organization.privateKeyPem);
  receiverKeys.set(scene.serviceKey.kid, scene.serviceKey.privateKey);
  receiverKeys.set(keyId(organizationKey), organizationKey);
  receiver = await startWebhookReceiver({ apiBaseUrl: runtime.baseUrl, keys: receiverKeys, host: '0.0.0.0' });
  sqs = new SQSClient(engineClientConfig(runtime.runtime.engines.sqsEndpoint));
  queues = runtime.runtime.queues;
  alice = await scene.linkDevice('alice');
  await setCallback(receiver.url('/hooks/service'));
});
afterAll(async () => {
  sqs?.destroy();
  await receiver?.close();
  await runtime?.stop();
});

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

async function setCallback(url: string | null): Promise<void> {
  await scene.organization.client.call('PATCH', '/directory/v3/services', {
    ...asDirectory(),
    body: { service_id: scene.serviceId, callback_url: url },
  });
}

/** Asks alice, lets her device answer as configured, and returns the request id and what GET reads. */
async function answered(
  body: Record<string, unknown> = {},
  options: { client?: ApiClient; configuration?: DeviceConfiguration; deny?: string | true } = {},
) {
  const created = await scene.ask({ username: 'alice', ...body }, options.client);
  const device = options.configuration
    ? new Authenticator({ ...alice.state, configuration: options.configuration })
    : alice;
  const [pending] = await device.pending();
  if (!pending) throw new Error('nothing pending');
  await device.answer(
    pending,
    options.deny === undefined
      ? { approve: true }
      : { approve: false, ...(options.deny === true ? {} : { denialReason: options.deny }) },
  );
  return created.auth_request;
}

async function openAuthJwe(webhook: ReceivedWebhook, key: KeyObject): Promise<Record<string, unknown>> {
  const { plaintext } = await compactDecrypt(String(webhook.body.auth_jwe), key);
  return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, unknown>;
}

/** The webhook for an auth request: its auth_jwe names it. */
function responseTo(authRequest: string, key: KeyObject = scene.serviceKey.privateKey) {
  return async (): Promise<{ webhook: ReceivedWebhook; answer: Record<string, unknown> }> => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      for (const webhook of receiver.received.filter((each) => each.body.type === 'AUTHORIZATION_RESPONSE')) {
        const answer = await openAuthJwe(webhook, key).catch(() => undefined);
        if (answer?.auth_request === authRequest) return { webhook, answer };
      }
      await sleep(50);
    }
    throw new Error(`no webhook for ${authRequest}; rejected: ${receiver.rejected.join('; ')}`);
  };
}

async function deadLetterFor(
  match: (letter: DeadLetter) => boolean,
  timeoutMs = 15_000,
): Promise<DeadLetter> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = (await listDeadLetters(sqs, queues)).find(match);
    if (found) return found;
    await sleep(250);
  }
  throw new Error('no such dead letter');
}

describe('the authorization response webhook', () => {
  it('reaches the callback_url signed as the SDKs check, with the docs/protocol.md#authorization-response object the service decrypts', async () => {
    const authRequest = await answered();
    const { webhook, answer } = await responseTo(authRequest)();
    expect(webhook.path).toBe('/hooks/service');
    expect(webhook.contentType).toBe('application/jose');
    expect(webhook.claims).toMatchObject({
      iss: 'lka',
      aud: `svc:${scene.serviceId}`,
      sub: `svc:${scene.serviceId}`,
      request: { meth: 'POST', path: '/hooks/service' },
    });
    expect(webhook.encryptedTo).toBe(scene.serviceKey.kid);
    // The same answer GET gives, with its type; auth_jwe sealed to the same key as the body (JV opens it so).
    const polled = (await scene.read(authRequest)).body;
    expect(webhook.body).toEqual({ type: 'AUTHORIZATION_RESPONSE', ...polled });
    expect(decodeProtectedHeader(String(webhook.body.auth_jwe)).kid).toBe(webhook.encryptedTo);
    expect(answer).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED', device_id: alice.state.deviceId });
  });

  it.each([
    ['DENIED', 'DISAPPROVED', { body: {}, deny: true as const }],
    ['DENIED', 'FRAUDULENT', { body: { denial_reasons: denialReasons }, deny: 'NOTME' }],
    ['FAILED', 'POLICY', { body: { policy: amountPolicy(3) } }],
    [
      'FAILED',
      'AUTHENTICATION',
      { body: { policy: amountPolicy(1) }, configuration: withMethod('pin_code', { verifies: false }) },
    ],
    [
      'FAILED',
      'CONFIGURATION',
      { body: { policy: inherencePolicy }, configuration: withMethod('fingerprint', { supported: false }) },
    ],
    [
      'FAILED',
      'PERMISSION',
      { body: { policy: inherencePolicy }, configuration: withMethod('fingerprint', { permission: false }) },
    ],
    ['FAILED', 'BUSY_LOCAL', { body: {}, configuration: { ...defaultConfiguration, busyLocal: true } }],
  ] as const)('carries %s/%s', async (type, reason, setup) => {
    const authRequest = await answered(setup.body, {
      ...('deny' in setup ? { deny: setup.deny } : {}),
      ...('configuration' in setup ? { configuration: setup.configuration } : {}),
    });
    const { answer } = await responseTo(authRequest)();
    expect(answer).toMatchObject({ type, reason, auth_request: authRequest });
  });

  it('is addressed and encrypted to the organization when organization credentials asked', async () => {
    const authRequest = await answered({}, { client: scene.organization.client });
    const { webhook, answer } = await responseTo(authRequest, organizationKey)();
    expect(webhook.claims).toMatchObject({ aud: scene.organization.issuer, sub: `svc:${scene.serviceId}` });
    expect(webhook.encryptedTo).toBe(keyId(organizationKey));
    expect(answer).toMatchObject({ type: 'AUTHORIZED' });
  });

  it('speaks the dialect of the request that caused it: iss api for the api dialect', async () => {
    const apiDialect = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `svc:${scene.serviceId}`,
      privateKeyPem: scene.serviceKey.privatePem,
      dialect: 'api',
    });
    const authRequest = await answered({}, { client: apiDialect });
    const { webhook } = await responseTo(authRequest)();
    expect(webhook.claims.iss).toBe('api');
  });
});

describe('the session ended webhook', () => {
  it('is plain JSON with exactly service_user_hash and api_time', async () => {
    const authRequest = await answered();
    const hash = (await scene.read(authRequest)).body?.service_user_hash;
    await scene.service.call('POST', '/service/v3/sessions', { body: { username: 'alice' } });
    await alice.logout(scene.serviceId);
    const webhook = await receiver.waitFor((each) => 'api_time' in each.body);
    expect(webhook.contentType).toBe('application/json');
    expect(Object.keys(webhook.body).sort()).toEqual(['api_time', 'service_user_hash']);
    expect(webhook.body.service_user_hash).toBe(hash);
    expect(Math.abs(Date.parse(String(webhook.body.api_time)) - Date.now())).toBeLessThan(30_000);
    expect(webhook.claims).toMatchObject({ aud: `svc:${scene.serviceId}`, sub: `svc:${scene.serviceId}` });
  });
});

describe('the device link completion webhook', () => {
  it("goes to the directory's webhook_url, encrypted to the entity that started the link", async () => {
    await scene.organization.client.call('PATCH', '/organization/v3/directories', {
      body: { directory_id: scene.directoryId, webhook_url: receiver.url('/hooks/directory') },
    });
    const device = await scene.linkDevice('bob');
    const webhook = await receiver.waitFor((each) => each.path === '/hooks/directory');
    expect(webhook.claims).toMatchObject({ aud: scene.organization.issuer, sub: `dir:${scene.directoryId}` });
    expect(webhook.encryptedTo).toBe(keyId(organizationKey));
    const devicePublicKey = String(webhook.body.device_public_key);
    expect(webhook.body).toEqual({
      type: 'DEVICE_LINK_COMPLETION',
      device_id: device.state.deviceId,
      device_public_key: devicePublicKey,
      device_public_key_id: keyId(createPrivateKey(device.state.privateKeyPem)),
    });
  });
});

describe('webhooks across a key rotation', () => {
  // An operator rotating keys adds the new key first and rolls it out to the application servers afterwards: until
  // then a server holds only the key it signs with, and every webhook its requests cause must still open with it.

  async function addKey(path: string, body: Record<string, unknown>) {
    const pair = rsaKeyPair();
    await scene.organization.client.call('POST', path, {
      ...asDirectory(),
      body: { ...body, public_key: pair.publicPem },
    });
    return pair;
  }

  it('the device link completion goes to the key that signed the link request, not to a newer one', async () => {
    await scene.organization.client.call('PATCH', '/organization/v3/directories', {
      body: { directory_id: scene.directoryId, webhook_url: receiver.url('/hooks/rotating') },
    });
    const oldKey = rsaKeyPair();
    await scene.organization.client.call('POST', '/organization/v3/directory/keys', {
      body: { directory_id: scene.directoryId, public_key: oldKey.publicPem },
    });
    receiverKeys.set(oldKey.kid, oldKey.privateKey);
    const directory = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `dir:${scene.directoryId}`,
      privateKeyPem: oldKey.privatePem,
    });
    const started = await directory.call<{ code: string; device_id: string }>(
      'POST',
      '/directory/v3/devices',
      {
        body: { identifier: 'carol' },
      },
    );
    // The new key arrives between the link request and the link; the application server does not hold it yet.
    const newKey = rsaKeyPair();
    await scene.organization.client.call('POST', '/organization/v3/directory/keys', {
      body: { directory_id: scene.directoryId, public_key: newKey.publicPem },
    });
    await linkAuthenticator({
      baseUrl: runtime.baseUrl,
      sdkKey: scene.sdkKey,
      code: started.body?.code as string,
    });
    const webhook = await receiver.waitFor(
      (each) => each.path === '/hooks/rotating' && each.body.device_id === started.body?.device_id,
    );
    expect(webhook.encryptedTo).toBe(oldKey.kid);
    expect(webhook.claims).toMatchObject({
      aud: `dir:${scene.directoryId}`,
      sub: `dir:${scene.directoryId}`,
    });
    expect(webhook.body.type).toBe('DEVICE_LINK_COMPLETION');

    // Once the old key is deactivated, the next link's webhook goes to the newest live key.
    await scene.organization.client.call('PATCH', '/organization/v3/directory/keys', {
      body: { directory_id: scene.directoryId, key_id: oldKey.kid, active: false },
    });
    receiverKeys.set(newKey.kid, newKey.privateKey);
    const next = await new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `dir:${scene.directoryId}`,
      privateKeyPem: newKey.privatePem,
    }).call<{ code: string; device_id: string }>('POST', '/directory/v3/devices', {
      body: { identifier: 'dave' },
    });
    await linkAuthenticator({
      baseUrl: runtime.baseUrl,
      sdkKey: scene.sdkKey,
      code: next.body?.code as string,
    });
    const second = await receiver.waitFor((each) => each.body.device_id === next.body?.device_id);
    expect(second.encryptedTo).toBe(newKey.kid);
  });

  it('the authorization response and its auth_jwe stay on the key that created the request', async () => {
    const created = await scene.ask({ username: 'alice' });
    const newer = await addKey('/directory/v3/service/keys', { service_id: scene.serviceId });
    try {
      const [pending] = await alice.pending();
      if (!pending) throw new Error('nothing pending');
      await alice.answer(pending, { approve: true });
      const { webhook } = await responseTo(created.auth_request)();
      expect(webhook.encryptedTo).toBe(scene.serviceKey.kid);
      expect(decodeProtectedHeader(String(webhook.body.auth_jwe)).kid).toBe(scene.serviceKey.kid);
    } finally {
      await scene.organization.client.call('DELETE', '/directory/v3/service/keys', {
        ...asDirectory(),
        body: { service_id: scene.serviceId, key_id: newer.kid },
      });
    }
  });
});

describe('delivery', () => {
  it('retries a failing receiver with growing delays until it accepts, then stops', async () => {
    await setCallback(receiver.url('/hooks/flaky'));
    receiver.answer('/hooks/flaky', 500, 503);
    const authRequest = await answered();
    await responseTo(authRequest)();
    const attempts = receiver.requests.filter((request) => request.path === '/hooks/flaky');
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 503, 200]);
    const [first, second, third] = attempts.map((attempt) => attempt.at) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(900);
    expect(third - second).toBeGreaterThan(second - first);
    await sleep(1_500);
    expect(receiver.requests.filter((request) => request.path === '/hooks/flaky')).toHaveLength(3);
  });

  it('gives up on a receiver that does not answer in time, and tries again', async () => {
    await setCallback(receiver.url('/hooks/slow'));
    receiver.answer('/hooks/slow', { delayMs: 2_000, status: 200 });
    const authRequest = await answered();
    await responseTo(authRequest)();
    expect(
      receiver.requests.filter((request) => request.path === '/hooks/slow').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('moves the event to the DLQ after the last attempt; a re-drive delivers it', async () => {
    await setCallback(receiver.url('/hooks/down'));
    receiver.answer('/hooks/down', 500, 500, 500);
    const authRequest = await answered();
    const letter = await deadLetterFor((each) => each.event?.authRequestId === authRequest);
    expect(letter).toMatchObject({
      event: { kind: 'authorization-response', authRequestId: authRequest },
      attempts: 3,
      reason: 'gave up after 3 attempts: the receiver answered 500',
    });
    expect(receiver.requests.filter((request) => request.path === '/hooks/down')).toHaveLength(3);

    const moved = await redriveDeadLetters(sqs, queues, new Set([letter.messageId]));
    expect(moved.map((each) => each.messageId)).toEqual([letter.messageId]);
    const { answer } = await responseTo(authRequest)();
    expect(answer.auth_request).toBe(authRequest);
    expect((await listDeadLetters(sqs, queues)).some((each) => each.messageId === letter.messageId)).toBe(
      false,
    );
  });

  it('refuses an address outside the allowed networks without fetching it, and dead-letters the event', async () => {
    await setCallback(`http://127.0.0.2:${receiver.port}/hooks/ssrf`);
    const authRequest = await answered();
    const letter = await deadLetterFor((each) => each.event?.authRequestId === authRequest);
    expect(letter.reason).toBe('refused: 127.0.0.2: 127.0.0.2 is a loopback address');
    expect(letter.attempts).toBe(1);
    expect(receiver.requests.some((request) => request.path === '/hooks/ssrf')).toBe(false);
  });

  it('delivers nothing and reports nothing when the service has no callback_url', async () => {
    await setCallback(null);
    const before = receiver.requests.length;
    const authRequest = await answered();
    await sleep(1_000);
    expect(receiver.requests.length).toBe(before);
    expect(
      (await listDeadLetters(sqs, queues)).some((each) => each.event?.authRequestId === authRequest),
    ).toBe(false);
    await setCallback(receiver.url('/hooks/service'));
  });

  it('dead-letters at once what cannot be built, with the reason', async () => {
    const unknown = crypto.randomUUID();
    const send = (body: string) =>
      sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: body }));
    await send(JSON.stringify({ kind: 'authorization-response', authRequestId: unknown }));
    await send(JSON.stringify({ kind: 'party' }));
    expect(await deadLetterFor((each) => each.event?.authRequestId === unknown)).toMatchObject({
      reason: `auth request ${unknown} has no answer`,
      attempts: 1,
    });
    expect(await deadLetterFor((each) => each.event === null)).toMatchObject({
      reason: 'the message is not a webhook event this service wrote',
    });
  });
});

describe('the worker', () => {
  it('reports only the records it could not handle as batch item failures', async () => {
    const { answerAuthRequest, getAuthRequest, putAuthRequest } = await import('#shared/store/auth-requests');
    const authRequest = await answered();
    await responseTo(authRequest)();
    const original = (await getAuthRequest(authRequest)) as AuthRequest;
    // A request whose requester key cannot be read: building its webhook throws.
    const broken = crypto.randomUUID();
    const nowSeconds = Math.floor(Date.now() / 1000);
    await putAuthRequest({
      ...original,
      id: broken,
      status: 'PENDING',
      expiresAt: nowSeconds + 60,
      requesterPublicKey: 'not a key',
    });
    await answerAuthRequest(broken, original.answer as AuthAnswer, nowSeconds);
    const { handler } = await import('#functions/events/deliver-webhooks');
    const record = (messageId: string, body: unknown): SQSEvent['Records'][number] => ({
      messageId,
      receiptHandle: messageId,
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'test',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test',
      awsRegion: 'us-east-1',
    });
    const result = await handler(
      {
        Records: [
          record('good', { kind: 'authorization-response', authRequestId: authRequest }),
          record('bad', { kind: 'authorization-response', authRequestId: broken }),
        ],
      },
      lambdaContext('test', 30_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
  });

  it('never fails a webhook check on the receiving side', () => {
    expect(receiver.rejected).toEqual([]);
  });
});
