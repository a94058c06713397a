import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '#infra/routes';
import { sealAnswer } from '#shared/authenticator/answer-packages';
import { linkAuthenticator, parseQrCodeUrl } from '#shared/authenticator/authenticator';
import { evaluate } from '#shared/authenticator/evaluate';
import { deviceStateAt } from '#shared/authenticator/state';
import { ApiClient } from '#shared/client/api-client';
import type { AuthorizationResponseBody } from '#shared/client/authorization-response';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { rsaPublicKeyOfBits } from '#test/support/big-keys';
import { rsaKeyPair } from '#test/support/keys';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusedWith } from '#test/support/tree';

let runtime: TestRuntime;
let scene: AuthScene;
let other: AuthScene;

beforeAll(async () => {
  runtime = await startTestRuntime();
  [scene, other] = await Promise.all([newAuthScene(runtime), newAuthScene(runtime)]);
});
afterAll(async () => {
  await runtime?.stop();
});

interface StartedLink {
  qrcode: string;
  code: string;
  device_id: string;
}

interface DeviceItem {
  id: string;
  name: string | null;
  type: string | null;
  status: number;
  created: string;
  updated: string;
}

const asDirectory = () => ({ subject: `dir:${scene.directoryId}` });

async function startLink(identifier: string, ttl?: number): Promise<StartedLink> {
  const started = await scene.organization.client.call<StartedLink>('POST', '/directory/v3/devices', {
    ...asDirectory(),
    body: { identifier, ...(ttl === undefined ? {} : { ttl }) },
  });
  return started.body as StartedLink;
}

async function listDevices(identifier: string): Promise<DeviceItem[]> {
  return (
    await scene.organization.client.call<DeviceItem[]>('POST', '/directory/v3/devices/list', {
      ...asDirectory(),
      body: { identifier },
    })
  ).body as DeviceItem[];
}

/** The device's own, unsigned link request. */
async function postLink(body: Record<string, unknown>) {
  const response = await fetch(`${runtime.baseUrl}/device/v3/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('linking a device', () => {
  it('starts LINK_PENDING with a code, a QR image of it, and becomes LINKED once the device links', async () => {
    const started = await startLink('dave');
    expect(started.code).toMatch(/^[A-Z0-9]{7,}$/);
    expect(parseQrCodeUrl(started.qrcode)).toEqual({ baseUrl: runtime.baseUrl, code: started.code });
    const image = await fetch(started.qrcode);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    expect(await listDevices('dave')).toEqual([
      expect.objectContaining({ id: started.device_id, status: 0, name: null, type: null }),
    ]);

    const state = await linkAuthenticator({
      baseUrl: runtime.baseUrl,
      sdkKey: scene.sdkKey,
      code: started.code,
      name: "Dave's phone",
      type: 'ios',
    });
    expect(state.deviceId).toBe(started.device_id);
    expect(await listDevices('dave')).toEqual([
      expect.objectContaining({ id: started.device_id, status: 1, name: "Dave's phone", type: 'ios' }),
    ]);
    // The code is used up; its image stays, as any well-formed code's does (it tells nobody which codes exist).
    expect((await fetch(started.qrcode)).status).toBe(200);
    expect(
      await postLink({ sdk_key: scene.sdkKey, code: started.code, public_key: rsaKeyPair().publicPem }),
    ).toMatchObject({ status: 404, body: { error_code: 'HTTP-404' } });
  });

  it('refuses an SDK key of another directory, and a key that is not an RSA key of 2048 bits', async () => {
    const started = await startLink('erin');
    expect(
      await postLink({ sdk_key: other.sdkKey, code: started.code, public_key: rsaKeyPair().publicPem }),
    ).toMatchObject({ status: 403, body: { error_code: 'HTTP-403' } });
    expect(
      await postLink({ sdk_key: scene.sdkKey, code: started.code, public_key: rsaKeyPair(1024).publicPem }),
    ).toMatchObject({ status: 400 });
    const hugeExponent = rsaPublicKeyOfBits(3072, (1n << 3070n) + 1n);
    expect(
      await postLink({ sdk_key: scene.sdkKey, code: started.code, public_key: hugeExponent }),
    ).toMatchObject({ status: 400, body: { error_code: 'KEY-001' } });
    // No attempt used the code up.
    const state = await linkAuthenticator({
      baseUrl: runtime.baseUrl,
      sdkKey: scene.sdkKey,
      code: started.code,
    });
    expect(state.deviceId).toBe(started.device_id);
  });

  it.each([
    ['a body that is not JSON', 'not json'],
    ['a missing public key', { sdk_key: crypto.randomUUID(), code: 'ABCDEFGH' }],
    ['a malformed code', { sdk_key: crypto.randomUUID(), code: 'abc', public_key: 'x' }],
    ['an unknown code', { sdk_key: crypto.randomUUID(), code: 'ZZZZZZZZ', public_key: 'x' }],
  ])('refuses %s', async (_, body) => {
    const response = await fetch(`${runtime.baseUrl}/device/v3/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect([400, 404]).toContain(response.status);
    expect(((await response.json()) as { error_code: string }).error_code).toMatch(/^(ARG-001|HTTP-404)$/);
  });

  it('links exactly one of two devices racing with one code', async () => {
    const started = await startLink('olga');
    const outcomes = await Promise.all(
      [rsaKeyPair(), rsaKeyPair()].map((pair) =>
        postLink({ sdk_key: scene.sdkKey, code: started.code, public_key: pair.publicPem }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([201, 404]);
    expect(await listDevices('olga')).toEqual([expect.objectContaining({ status: 1 })]);
  });

  it('draws the QR image of any well-formed code, and refuses what cannot be one', async () => {
    expect((await fetch(`${runtime.baseUrl}/public/v3/qrcodes/ABCDEFGH`)).status).toBe(200);
    expect((await fetch(`${runtime.baseUrl}/public/v3/qrcodes/not-a-code`)).status).toBe(404);
  });

  it('refuses a ttl outside 30 to 3600 seconds', async () => {
    expect(
      await refusedWith(
        scene.organization.client.call('POST', '/directory/v3/devices', {
          ...asDirectory(),
          body: { identifier: 'frank', ttl: 10 },
        }),
      ),
    ).toEqual({ status: 400, code: 'ARG-001' });
  });
});

describe('the device list', () => {
  it('is empty for an unknown user, and loses a device the directory unlinks', async () => {
    expect(await listDevices('nobody')).toEqual([]);
    const device = await scene.linkDevice('gina');
    await startLink('gina');
    expect((await listDevices('gina')).map((item) => item.status).sort()).toEqual([0, 1]);
    await scene.unlinkDevice('gina', device.state.deviceId);
    expect((await listDevices('gina')).map((item) => item.status)).toEqual([0]);
    expect(await refusedWith(scene.unlinkDevice('gina', device.state.deviceId))).toEqual({
      status: 404,
      code: 'HTTP-404',
    });
  });

  it("does not show or unlink another directory's devices", async () => {
    const device = await other.linkDevice('gina');
    expect(await refusedWith(scene.unlinkDevice('gina', device.state.deviceId))).toEqual({
      status: 404,
      code: 'HTTP-404',
    });
    expect(await device.pending()).toEqual([]);
  });
});

describe('who may sign as a device', () => {
  // The application's keys (organization, directory, service) live on servers that can be breached: none of them may
  // ever read a device's requests or answer in its name.
  const deviceRoutes = httpRoutes.filter(
    (route) => route.path.startsWith('/device/') && route.access.apiKeys === true,
  );

  async function directoryClient(): Promise<ApiClient> {
    const key = rsaKeyPair();
    await scene.organization.client.call('POST', '/organization/v3/directory/keys', {
      body: { directory_id: scene.directoryId, public_key: key.publicPem },
    });
    return new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `dir:${scene.directoryId}`,
      privateKeyPem: key.privatePem,
    });
  }

  it('covers every signed device route', () => {
    expect(deviceRoutes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'GET /device/v3/auths',
      'POST /device/v3/auths/{auth_request}',
      'GET /device/v3/sessions',
      'DELETE /device/v3/sessions',
      'DELETE /device/v3/link',
      'GET /device/v3/link',
      'GET /device/v3/link-requests',
      'POST /device/v3/link-requests/{device_id}',
      'GET /device/v3/push',
      'PUT /device/v3/push',
      'DELETE /device/v3/push',
      'POST /device/v3/passkey/options',
      'PUT /device/v3/passkey',
    ]);
  });

  it('refuses organization, directory and service credentials on every device route with 403', async () => {
    const identifier = `impersonated-${randomUUID()}`;
    const device = await scene.linkDevice(identifier);
    const created = await scene.ask({ username: identifier });
    const [pending] = await device.pending();
    if (!pending) throw new Error('the device was offered no request');
    // A well-formed answer, sealed to the requester as the device would seal it.
    const sealed = await sealAnswer(pending, {
      authRequest: pending.auth_request,
      deviceId: device.state.deviceId,
      servicePins: ['1234'],
      evaluation: evaluate(
        parseEffectivePolicy(pending.policy),
        deviceStateAt(device.state.configuration, new Date()),
        { kind: 'approve' },
      ),
    });
    const bodies: Readonly<Record<string, object>> = {
      'POST /device/v3/auths/{auth_request}': sealed,
      'DELETE /device/v3/sessions': { service_id: scene.serviceId },
      'POST /device/v3/link-requests/{device_id}': { approve: true },
    };
    const impostors = {
      organization: scene.organization.client,
      directory: await directoryClient(),
      service: scene.service,
    };
    const answers: string[] = [];
    for (const [who, client] of Object.entries(impostors)) {
      for (const route of deviceRoutes) {
        const body = bodies[`${route.method} ${route.path}`];
        const refused = await refusedWith(
          client.call(
            route.method,
            route.path
              .replace('{auth_request}', created.auth_request)
              .replace('{device_id}', device.state.deviceId),
            {
              subject: `dev:${device.state.deviceId}`,
              ...(body ? { body } : {}),
            },
          ),
        );
        answers.push(`${who} ${route.method} ${route.path}: ${refused.status}`);
      }
    }
    expect(answers).toEqual(
      Object.keys(impostors).flatMap((who) =>
        deviceRoutes.map((route) => `${who} ${route.method} ${route.path}: 403`),
      ),
    );

    // Nothing happened in the device's name: the request is still pending and the device itself still answers it.
    expect((await scene.read(created.auth_request)).status).toBe(204);
    expect((await device.pending()).map((request) => request.auth_request)).toEqual([created.auth_request]);
    await device.answer(pending, { approve: true });
    expect(
      await scene.open((await scene.read(created.auth_request)).body as AuthorizationResponseBody),
    ).toMatchObject({
      type: 'AUTHORIZED',
      device_id: device.state.deviceId,
    });
  });
});
