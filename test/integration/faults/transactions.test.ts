import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sealAnswer } from '#shared/authenticator/answer-packages';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { evaluate } from '#shared/authenticator/evaluate';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { type Fault, injectFaults, refused, timedOut } from '#test/support/sdk-faults';
import { serviceWebhooks } from '#test/support/service-webhooks';
import { refusal, uniqueName } from '#test/support/tree';
import type { WebhookReceiver } from '#test/support/webhook-receiver';

/**
 * The store's transactions failing under real requests: the create's (count, request and the user's slot) and the
 * answer's (answer and slot). What the caller sees is a 503, and what the store keeps is all or nothing.
 */
let runtime: TestRuntime;
let scene: AuthScene;
let webhooks: WebhookReceiver;
let storeFault: Fault | undefined;

const transactions = /TransactWriteItems/;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  webhooks = await serviceWebhooks(runtime, scene);
  // One request per user a day: a create that was counted though it failed leaves the user unaskable.
  const { updateDirectorySettings } = await import('#shared/use-cases/directory-settings');
  await updateDirectorySettings(scene.directoryId, { rateLimit: '1/86400' });
  const { dynamo } = await import('#shared/store/dynamo');
  injectFaults(dynamo, () => storeFault, 'transactionFault');
});
afterEach(() => {
  storeFault = undefined;
});
afterAll(async () => {
  await webhooks?.close();
  await runtime?.stop();
});

/** A new user with one linked device, never asked before. */
async function newUser(): Promise<{ username: string; device: Authenticator }> {
  const username = uniqueName('user').replace(' ', '-');
  return { username, device: await scene.linkDevice(username) };
}

/** A cancellation of the create's transaction by another transaction on one of its items (the user's slot). */
const conflict = () =>
  new TransactionCanceledException({
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, TransactionConflict]',
    $metadata: {},
    CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
  });

/** Nothing of a failed create is left: no request on the device, the slot free, the rate limit's one use unspent. */
async function expectNothingWritten(username: string, device: Authenticator): Promise<void> {
  expect(await device.pending()).toEqual([]);
  const created = await scene.ask({ username });
  const [pending] = await device.pending();
  expect(pending?.auth_request).toBe(created.auth_request);
}

describe("the create's transaction", () => {
  it.each([
    ['refused', refused],
    ['timed out', timedOut],
  ])(
    'failing (%s, after the SDK retries) is a 503 that leaves nothing, not even a rate-limit count',
    async (_, error) => {
      const { username, device } = await newUser();
      storeFault = { passes: 0, failures: Number.POSITIVE_INFINITY, only: transactions, error };
      expect(await refusal(scene.ask({ username }))).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
      storeFault = undefined;
      await expectNothingWritten(username, device);
      // The limit of one is in force: the second request the user could be sent is refused.
      const [pending] = await device.pending();
      await scene.service.call('DELETE', `/service/v3/auths/${pending?.auth_request}`);
      expect(await refusal(scene.ask({ username }))).toMatchObject({ status: 429, errorCode: 'USR-001' });
    },
  );

  it('cancelled once by a conflicting transaction is retried, and the request is made', async () => {
    const { username, device } = await newUser();
    storeFault = { passes: 0, failures: 1, only: transactions, error: conflict };
    const created = await scene.ask({ username });
    expect(storeFault).toMatchObject({ failures: 0 });
    const [pending] = await device.pending();
    expect(pending?.auth_request).toBe(created.auth_request);
  });

  it('applied but its answer lost is sent again with the same token by the SDK: the request is made, once', async () => {
    const { username, device } = await newUser();
    storeFault = { passes: 0, failures: 1, only: transactions, error: timedOut, answerLost: true };
    const created = await scene.ask({ username });
    expect(storeFault).toMatchObject({ failures: 0 });
    const [pending] = await device.pending();
    expect(pending?.auth_request).toBe(created.auth_request);
    // Counted once: after the request is cancelled the user has no request left today.
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
    expect(await refusal(scene.ask({ username }))).toMatchObject({ status: 429, errorCode: 'USR-001' });
  });

  it('cancelled by conflicts that persist is a 503 that leaves nothing', async () => {
    const { username, device } = await newUser();
    storeFault = { passes: 0, failures: Number.POSITIVE_INFINITY, only: transactions, error: conflict };
    const error = await refusal(scene.ask({ username }));
    expect(error).toMatchObject({ status: 503, errorCode: 'HTTP-503' });
    expect(String(error.errorDetail)).toContain('TransactionConflict');
    storeFault = undefined;
    await expectNothingWritten(username, device);
  });
});

describe("the answer's transaction", () => {
  it('failing is a 503 to the device; the request stays pending, and the same answer sent again is recorded and announced', async () => {
    const { username, device } = await newUser();
    const created = await scene.ask({ username });
    const [pending] = await device.pending();
    const view = pending as NonNullable<typeof pending>;
    const asDevice = deviceClient(runtime.baseUrl, device);
    const packages = await sealAnswer(view, {
      authRequest: view.auth_request,
      deviceId: device.state.deviceId,
      servicePins: ['4321'],
      evaluation: evaluate(
        parseEffectivePolicy(view.policy),
        { methods: {}, now: new Date() },
        { kind: 'approve' },
      ),
    });
    const path = `/device/v3/auths/${view.auth_request}`;

    storeFault = { passes: 0, failures: Number.POSITIVE_INFINITY, only: transactions, error: refused };
    expect(await refusal(asDevice.call('POST', path, { body: packages }))).toMatchObject({
      status: 503,
      errorCode: 'HTTP-503',
    });
    storeFault = undefined;
    expect((await scene.read(created.auth_request)).status).toBe(204);
    expect((await device.pending()).map((each) => each.auth_request)).toEqual([created.auth_request]);

    expect((await asDevice.call('POST', path, { body: packages })).status).toBe(204);
    const read = await scene.read(created.auth_request);
    expect(read.status).toBe(200);
    expect(await scene.open(read.body as NonNullable<typeof read.body>)).toMatchObject({
      type: 'AUTHORIZED',
      service_pins: ['4321'],
    });
    const webhook = await webhooks.waitFor((each) => each.body.auth_jwe === read.body?.auth_jwe);
    expect(webhook.body.type).toBe('AUTHORIZATION_RESPONSE');
    expect(await device.pending()).toEqual([]);
  });
});
