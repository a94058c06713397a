import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Authenticator } from '#shared/authenticator/authenticator';
import { sealAnswer } from '#shared/authenticator/answer-packages';
import { evaluate } from '#shared/authenticator/evaluate';
import { ApiClient } from '#shared/client/api-client';
import type { ApiRequestError } from '#shared/client/errors';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import {
  type AuthScene,
  type CreatedAuthRequest,
  deviceClient,
  newAuthScene,
} from '#test/support/auth-scene';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal, refusedWith, uniqueName } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let alice: Authenticator;
/** A request with the shortest ttl, asked first and checked last, once it has expired. */
let expiring: CreatedAuthRequest;
let expiringAt: number;
let eve: Authenticator;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  alice = await scene.linkDevice('alice');
  eve = await scene.linkDevice('eve');
  expiring = await scene.ask({ username: 'eve', ttl: 30 });
  expiringAt = Date.now() + 30_000;
});
afterAll(async () => {
  await runtime?.stop();
});

const subject = () => `svc:${scene.serviceId}`;

async function answerPending(device: Authenticator, approve = true) {
  const [pending] = await device.pending();
  if (!pending) throw new Error('nothing pending');
  return device.answer(pending, { approve });
}

/** A second service of the same directory, signing with its own key. */
async function siblingService(): Promise<{ id: string; client: ApiClient }> {
  const asDirectory = { subject: `dir:${scene.directoryId}` };
  const id = (
    await scene.organization.client.call<{ id: string }>('POST', '/directory/v3/services', {
      ...asDirectory,
      body: { name: uniqueName('Sibling') },
    })
  ).body?.id as string;
  const key = rsaKeyPair();
  await scene.organization.client.call('POST', '/directory/v3/service/keys', {
    ...asDirectory,
    body: { service_id: id, public_key: key.publicPem },
  });
  return {
    id,
    client: new ApiClient({ baseUrl: runtime.baseUrl, issuer: `svc:${id}`, privateKeyPem: key.privatePem }),
  };
}

describe('reading a request', () => {
  it('is 204 for an id nobody issued', async () => {
    expect((await scene.read(crypto.randomUUID())).status).toBe(204);
  });

  it('is 204 for another service: it does not know the request', async () => {
    const created = await scene.ask({ username: 'alice' });
    const sibling = await siblingService();
    const read = await sibling.client.call('GET', `/service/v3/auths/${created.auth_request}`);
    expect(read.status).toBe(204);
    expect(
      await refusedWith(sibling.client.call('DELETE', `/service/v3/auths/${created.auth_request}`)),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    await answerPending(alice);
    expect((await sibling.client.call('GET', `/service/v3/auths/${created.auth_request}`)).status).toBe(204);
  });
});

describe('cancelling', () => {
  it('is 204, then reads as SVC-007, frees the user and leaves nothing for the device', async () => {
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await alice.pending();
    const cancel = await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
      subject: subject(),
    });
    expect(cancel.status).toBe(204);
    expect(await refusedWith(scene.read(created.auth_request))).toEqual({ status: 400, code: 'SVC-007' });
    expect(
      await refusedWith(scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`)),
    ).toEqual({ status: 400, code: 'SVC-007' });
    expect(await alice.pending()).toEqual([]);
    // The device that had it on screen is told it is gone.
    expect(
      await refusedWith(alice.answer(pending as NonNullable<typeof pending>, { approve: true })),
    ).toEqual({ status: 400, code: 'SVC-007' });
    const next = await scene.ask({ username: 'alice' });
    expect(next.auth_request).not.toBe(created.auth_request);
    await answerPending(alice);
  });

  it('refuses an answered request with SVC-006 and an unknown one with 404', async () => {
    const created = await scene.ask({ username: 'alice' });
    await answerPending(alice);
    expect(
      await refusedWith(scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`)),
    ).toEqual({ status: 400, code: 'SVC-006' });
    expect(
      await refusedWith(scene.service.call('DELETE', `/service/v3/auths/${crypto.randomUUID()}`)),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    expect((await scene.read(created.auth_request)).status).toBe(200);
  });
});

describe('answering', () => {
  it('happens once: the same answer sent again succeeds, another one is SVC-006', async () => {
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await alice.pending();
    const view = pending as NonNullable<typeof pending>;
    const asDevice = deviceClient(runtime.baseUrl, alice);
    const approve = evaluate(
      parseEffectivePolicy(view.policy),
      { methods: {}, now: new Date() },
      {
        kind: 'approve',
      },
    );
    const packages = await sealAnswer(view, {
      authRequest: view.auth_request,
      deviceId: alice.state.deviceId,
      servicePins: ['1234'],
      evaluation: approve,
    });
    const path = `/device/v3/auths/${view.auth_request}`;
    expect((await asDevice.call('POST', path, { body: packages })).status).toBe(204);
    // A retry after a lost response is answered the same way.
    expect((await asDevice.call('POST', path, { body: packages })).status).toBe(204);
    expect(await refusedWith(alice.answer(view, { approve: false }))).toEqual({
      status: 400,
      code: 'SVC-006',
    });
    const opened = await scene.open((await scene.read(created.auth_request)).body as never);
    expect(opened).toMatchObject({ type: 'AUTHORIZED', service_pins: ['1234'] });
  });

  it('is refused to a device the request was not offered to', async () => {
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await alice.pending();
    const stranger = await scene.linkDevice('mallory');
    expect(await stranger.pending()).toEqual([]);
    expect(
      await refusedWith(stranger.answer(pending as NonNullable<typeof pending>, { approve: true })),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await answerPending(alice);
  });
});

describe('one pending request per user', () => {
  it('of 20 concurrent requests lets exactly one through; the other 19 get SVC-005 naming it', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => scene.ask({ username: 'alice', ttl: 120 })),
    );
    const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    expect(winners).toHaveLength(1);
    const winner = winners[0] as CreatedAuthRequest;
    const losers = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason as ApiRequestError] : [],
    );
    expect(losers).toHaveLength(19);
    for (const loser of losers) {
      expect(loser).toMatchObject({
        status: 409,
        errorCode: 'SVC-005',
        errorData: { auth_request: winner.auth_request, from_same_service: true },
      });
      expect(String(loser.errorDetail)).toMatch(/expires in 1[12]\d seconds/);
      expect(Date.parse(String(loser.errorData?.expires))).toBeGreaterThan(Date.now() + 100_000);
    }
    // The device sees only the winner, and answering it frees the user.
    expect((await alice.pending()).map((view) => view.auth_request)).toEqual([winner.auth_request]);
    await answerPending(alice);
    const next = await scene.ask({ username: 'alice' });
    expect(next.auth_request).not.toBe(winner.auth_request);
    await answerPending(alice);
  });

  it('tells another service that the request is not its own', async () => {
    const created = await scene.ask({ username: 'alice' });
    const sibling = await siblingService();
    const busy = await refusal(
      sibling.client.call('POST', '/service/v3/auths', { body: { username: 'alice' } }),
    );
    expect(busy).toMatchObject({
      status: 409,
      errorCode: 'SVC-005',
      errorData: { auth_request: created.auth_request, from_same_service: false },
    });
    await answerPending(alice);
  });
});

describe('unlinking a device while a request waits for it', () => {
  it('stops the device at once; the request stays readable and the user cannot be asked again', async () => {
    const bob = await scene.linkDevice('bob');
    const created = await scene.ask({ username: 'bob' });
    const [pending] = await bob.pending();
    await scene.unlinkDevice('bob', bob.state.deviceId);
    expect(
      await refusedWith(bob.answer(pending as NonNullable<typeof pending>, { approve: true })),
    ).toMatchObject({ status: 401 });
    expect((await scene.read(created.auth_request)).status).toBe(204);
    await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
    expect(await refusedWith(scene.ask({ username: 'bob' }))).toEqual({ status: 404, code: 'HTTP-404' });
  });

  it('when the device unlinks itself, it can no longer sign', async () => {
    const carol = await scene.linkDevice('carol');
    await carol.unlink();
    expect(await refusedWith(carol.pending())).toMatchObject({ status: 401 });
    const devices = await scene.organization.client.call<{ id: string }[]>(
      'POST',
      '/directory/v3/devices/list',
      {
        subject: `dir:${scene.directoryId}`,
        body: { identifier: 'carol' },
      },
    );
    expect(devices.body).toEqual([]);
  });
});

describe('expiry', () => {
  it('reads 408 with no body, refuses the late answer, and lets a new request through', async () => {
    const [pending] = await eve.pending();
    expect(pending?.auth_request).toBe(expiring.auth_request);
    await sleep(Math.max(0, expiringAt - Date.now() + 1_500));
    const expired = await refusal(scene.read(expiring.auth_request));
    expect(expired).toMatchObject({ status: 408, errorCode: undefined });
    expect(await eve.pending()).toEqual([]);
    expect(await refusedWith(eve.answer(pending as NonNullable<typeof pending>, { approve: true }))).toEqual({
      status: 408,
      code: 'HTTP-408',
    });
    expect(
      await refusedWith(scene.service.call('DELETE', `/service/v3/auths/${expiring.auth_request}`)),
    ).toEqual({ status: 404, code: 'HTTP-404' });
    const next = await scene.ask({ username: 'eve' });
    await answerPending(eve);
    expect((await scene.read(next.auth_request)).status).toBe(200);
  }, 45_000);
});
