import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authenticator } from '#shared/authenticator/authenticator';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { denialReasons } from '#test/support/requests';
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

  it('takes a denial as fraud without the code: the application reads it as LaunchKey shapes it, and the user is locked', async () => {
    const settings = await import('#shared/use-cases/directory-settings');
    const fraudScene = await newAuthScene(runtime);
    await settings.updateDirectorySettings(fraudScene.directoryId, { fraudLock: '900' });
    const hooks = await serviceWebhooks(runtime, fraudScene);
    try {
      const device = await fraudScene.linkDevice('dee');
      const created: Created = await fraudScene.ask({
        username: 'dee',
        number_matching: true,
        denial_reasons: denialReasons,
      });
      const pending = await pendingOf(device);
      // The user never saw the code: approving without it is still refused, and the request stays pending.
      const approve = await refusal(device.answer(pending, { approve: true }));
      expect({ status: approve.status, code: approve.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
      expect((await fraudScene.read(created.auth_request)).status).toBe(204);

      const denied = await device.answer(pending, { approve: false, denialReason: 'NOTME' });
      expect(denied.evaluation).toMatchObject({
        type: 'DENIED',
        reason: 'FRAUDULENT',
        denialReason: 'NOTME',
      });
      const poll = await fraudScene.read(created.auth_request);
      expect(poll.status).toBe(200);
      expect(await fraudScene.open(poll.body as NonNullable<typeof poll.body>)).toEqual({
        type: 'DENIED',
        reason: 'FRAUDULENT',
        denial_reason: 'NOTME',
        auth_request: created.auth_request,
        device_id: device.state.deviceId,
        service_pins: [],
        authorized: false,
      });
      expect(poll.body?.auth).toBeNull();
      const webhook = await hooks.waitFor((each) => each.body.auth_jwe === poll.body?.auth_jwe);
      expect(webhook.body).toEqual({ type: 'AUTHORIZATION_RESPONSE', ...poll.body });

      // The same denial sent again is a retry; another answer is too late.
      const asDevice = deviceClient(runtime.baseUrl, device);
      const path = `/device/v3/auths/${created.auth_request}`;
      const again = await asDevice.call('POST', path, {
        body: { deny: { denial_reason: 'NOTME', fraud: true } },
      });
      expect(again.status).toBe(204);
      const changed = await refusal(
        asDevice.call('POST', path, { body: { deny: { denial_reason: 'LATER', fraud: false } } }),
      );
      expect(changed.errorCode).toBe('SVC-006');

      const locked = await refusal(fraudScene.ask({ username: 'dee' }));
      expect({ status: locked.status, code: locked.errorCode }).toEqual({ status: 429, code: 'USR-002' });
    } finally {
      await hooks.close();
    }
  });

  it('takes a plain denial without the code, with a reason or none', async () => {
    const device = await scene.linkDevice('eve');
    for (const [choice, expected] of [
      [
        { approve: false, denialReason: 'LATER' },
        { reason: 'DISAPPROVED', denial_reason: 'LATER' },
      ],
      [{ approve: false }, { reason: 'DISAPPROVED', denial_reason: null }],
    ] as const) {
      const created: Created = await scene.ask({
        username: 'eve',
        number_matching: true,
        denial_reasons: denialReasons,
      });
      await device.answer(await pendingOf(device), choice);
      const poll = await scene.read(created.auth_request);
      expect(await scene.open(poll.body as NonNullable<typeof poll.body>)).toMatchObject({
        type: 'DENIED',
        ...expected,
        authorized: false,
      });
    }
  });

  it('refuses a denial without the code that the request does not offer, or that says fraud wrongly', async () => {
    const device = await scene.linkDevice('fay');
    const created: Created = await scene.ask({
      username: 'fay',
      number_matching: true,
      denial_reasons: denialReasons,
    });
    const asDevice = deviceClient(runtime.baseUrl, device);
    const path = `/device/v3/auths/${created.auth_request}`;
    const pending = await pendingOf(device);
    const sealed = { auth_jwe: 'a.b.c.d.e' };
    for (const body of [
      { deny: { denial_reason: 'OTHER', fraud: false } },
      { deny: { denial_reason: 'NOTME', fraud: false } },
      { deny: { denial_reason: 'LATER', fraud: true } },
      { deny: { fraud: true } },
      { ...sealed, deny: { denial_reason: 'LATER', fraud: false } },
      { deny: { denial_reason: 'LATER', fraud: false }, number_match_code: created.number_match_code },
      { deny: { denial_reason: 'LATER', fraud: false }, fraud: true },
      {},
    ]) {
      const refused = await refusal(asDevice.call('POST', path, { body }));
      expect({ body, status: refused.status, code: refused.errorCode }).toEqual({
        body,
        status: 400,
        code: 'ARG-001',
      });
    }
    expect((await scene.read(created.auth_request)).status).toBe(204);
    expect(pending.auth_request).toBe(created.auth_request);
    await scene.service.call('DELETE', path.replace('/device/', '/service/'), {
      subject: `svc:${scene.serviceId}`,
    });

    // A request without number matching is answered sealed, as before.
    const plain = await scene.ask({ username: 'fay' });
    const refused = await refusal(
      asDevice.call('POST', `/device/v3/auths/${plain.auth_request}`, {
        body: { deny: { denial_reason: null, fraud: false } },
      }),
    );
    expect({ status: refused.status, code: refused.errorCode }).toEqual({ status: 400, code: 'ARG-001' });
    expect((await scene.read(plain.auth_request)).status).toBe(204);
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
