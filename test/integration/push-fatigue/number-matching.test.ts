import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';
import type { WebhookReceiver } from '#test/support/webhook-receiver';
import { serviceWebhooks } from '#test/support/service-webhooks';

let runtime: TestRuntime;
let scene: AuthScene;
let other: AuthScene;
let webhooks: WebhookReceiver;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  other = await newAuthScene(runtime);
  webhooks = await serviceWebhooks(runtime, scene);
});
afterAll(async () => {
  await webhooks?.close();
  await runtime?.stop();
});

type Created = Awaited<ReturnType<AuthScene['ask']>> & { number_match_code?: string };

async function pendingOf(device: Authenticator) {
  const [pending] = await device.pending();
  return pending as NonNullable<typeof pending>;
}

/** A code of the same length that is not the request's. */
const wrongCode = (code: string) => String((Number(code) + 1) % 1000).padStart(3, '0');

describe('number matching', () => {
  it('gives the application a code, tells the device one is needed without showing it, and accepts it', async () => {
    const device = await scene.linkDevice('ann');
    const created: Created = await scene.ask({ username: 'ann', number_matching: true });
    expect(created.number_match_code).toMatch(/^\d{3}$/);
    const pending = await pendingOf(device);
    expect(pending.number_match).toBe(true);
    expect(JSON.stringify(pending)).not.toContain(`"${created.number_match_code}"`);

    await device.answer(pending, { approve: true, numberMatchCode: created.number_match_code as string });
    const read = await scene.read(created.auth_request);
    expect(read.status).toBe(200);
    const opened = await scene.open(read.body as NonNullable<typeof read.body>);
    expect(opened).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
  });

  it('refuses an answer without the code, and wrong codes, then ends the request after the third', async () => {
    const device = await scene.linkDevice('ben');
    const created: Created = await scene.ask({ username: 'ben', number_matching: true });
    const code = created.number_match_code as string;
    const pending = await pendingOf(device);

    const missing = await refusal(device.answer(pending, { approve: true }));
    expect({ status: missing.status, code: missing.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    for (const left of [2, 1]) {
      const wrong = await refusal(
        device.answer(pending, { approve: true, numberMatchCode: wrongCode(code) }),
      );
      expect({ status: wrong.status, code: wrong.errorCode, data: wrong.errorData }).toEqual({
        status: 400,
        code: 'SVC-009',
        data: { attempts_left: left },
      });
      expect((await scene.read(created.auth_request)).status).toBe(204);
    }
    const last = await refusal(device.answer(pending, { approve: true, numberMatchCode: wrongCode(code) }));
    expect({ status: last.status, code: last.errorCode }).toEqual({ status: 400, code: 'SVC-008' });

    // Ended as a failed authentication: the application reads it on its poll and its webhook, as the SDKs read a
    // device's FAILED answer; the right code comes too late, the service cannot cancel it, and the user is free again.
    const poll = await scene.read(created.auth_request);
    expect(poll.status).toBe(200);
    const failed: Record<string, unknown> = {
      type: 'FAILED',
      reason: 'AUTHENTICATION',
      denial_reason: null,
      auth_request: created.auth_request,
      device_id: device.state.deviceId,
      service_pins: [],
    };
    expect(await scene.open(poll.body as NonNullable<typeof poll.body>)).toEqual({
      ...failed,
      authorized: false,
    });
    expect(poll.body?.auth).toBeNull();
    const webhook = await webhooks.waitFor((each) => each.body.auth_jwe === poll.body?.auth_jwe);
    expect(webhook.body).toEqual({ type: 'AUTHORIZATION_RESPONSE', ...poll.body });
    const late = await refusal(device.answer(pending, { approve: true, numberMatchCode: code }));
    expect(late.errorCode).toBe('SVC-008');
    const cancel = await refusal(
      scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`, {
        subject: `svc:${scene.serviceId}`,
      }),
    );
    expect(cancel.errorCode).toBe('SVC-008');
    // Another tenant's service cannot tell this request from one that never was.
    const cancelAs = async (authRequest: string) => {
      const error = await refusal(
        other.service.call('DELETE', `/service/v3/auths/${authRequest}`, {
          subject: `svc:${other.serviceId}`,
        }),
      );
      return {
        status: error.status,
        code: error.errorCode,
        detail: error.errorDetail,
        data: error.errorData,
      };
    };
    const unknown = await cancelAs(randomUUID());
    expect(unknown).toMatchObject({ status: 404, code: 'HTTP-404' });
    expect(await cancelAs(created.auth_request)).toEqual(unknown);
    expect(await device.pending()).toEqual([]);
    expect((await scene.ask({ username: 'ben' })).auth_request).toMatch(/^[\da-f-]{36}$/);
  });

  it('leaves a request that did not opt in exactly as before, whatever code a device sends', async () => {
    const device = await scene.linkDevice('cal');
    const created = await scene.ask({ username: 'cal' });
    expect(Object.keys(created).sort()).toEqual(['auth_request', 'device_ids', 'push_package']);
    const pending = await pendingOf(device);
    expect(pending).not.toHaveProperty('number_match');
    await device.answer(pending, { approve: true, numberMatchCode: '123' });
    expect((await scene.read(created.auth_request)).status).toBe(200);
  });
});
