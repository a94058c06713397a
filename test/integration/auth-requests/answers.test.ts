import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '#shared/authenticator/authenticator';
import { type DeviceConfiguration, defaultConfiguration } from '#shared/authenticator/state';
import { openAuthorizationResponse } from '#shared/client/authorization-response';
import { decryptLegacyAuthPackage } from '#shared/protocol/legacy-packages';
import { keyId } from '#shared/protocol/kid';
import { type AuthScene, newAuthScene } from '#test/support/auth-scene';
import { amountPolicy, denialReasons, inherencePolicy, withMethod } from '#test/support/requests';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let runtime: TestRuntime;
let scene: AuthScene;
let device: Authenticator;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  device = await scene.linkDevice('alice');
});
afterAll(async () => {
  await runtime?.stop();
});

function configured(configuration: DeviceConfiguration): Authenticator {
  return new Authenticator({ ...device.state, configuration });
}

/** Asks alice, lets `answering` answer as the user chose, and opens what the application reads back. */
async function askAndAnswer(
  body: Record<string, unknown>,
  answering: Authenticator,
  choice: Parameters<Authenticator['answer']>[1] = { approve: true },
) {
  const created = await scene.ask({ username: 'alice', ...body });
  const [pending] = await answering.pending();
  expect(pending?.auth_request).toBe(created.auth_request);
  const answered = await answering.answer(pending as NonNullable<typeof pending>, choice);
  device = new Authenticator({ ...device.state, servicePins: answered.state.servicePins });
  const read = await scene.read(created.auth_request);
  expect(read.status).toBe(200);
  return { created, read, opened: await scene.open(read.body as NonNullable<typeof read.body>) };
}

describe('an approval, end to end', () => {
  it('reaches the application, which decrypts AUTHORIZED/APPROVED with the device and its pins', async () => {
    const created = await scene.ask({
      username: 'alice',
      context: 'Sign in from Firefox',
      title: 'Sign in',
      push_title: 'Are you signing in?',
      push_body: 'Approve to continue',
    });
    expect(created.device_ids).toEqual([device.state.deviceId]);
    expect(created.push_package).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await scene.read(created.auth_request)).status).toBe(204);

    const [pending] = await device.pending();
    expect(pending).toMatchObject({
      auth_request: created.auth_request,
      service: { id: scene.serviceId },
      title: 'Sign in',
      context: 'Sign in from Firefox',
      push_title: 'Are you signing in?',
      push_body: 'Approve to continue',
      denial_reasons: null,
      requester: { entity: `svc:${scene.serviceId}`, kid: scene.serviceKey.kid },
      service_key: { kid: scene.serviceKey.kid },
    });
    const answered = await device.answer(pending as NonNullable<typeof pending>, { approve: true });
    device = new Authenticator(answered.state);

    const read = await scene.read(created.auth_request);
    expect(read.status).toBe(200);
    const body = read.body as NonNullable<typeof read.body>;
    expect(Object.keys(body).sort()).toEqual(
      ['auth', 'auth_jwe', 'org_user_hash', 'public_key_id', 'service_user_hash', 'user_push_id'].sort(),
    );
    expect(body.public_key_id).toBe(scene.serviceKey.kid);
    const opened = await scene.open(body);
    const pins = answered.state.servicePins[scene.serviceId];
    expect(pins).toHaveLength(1);
    expect(opened).toMatchObject({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      denial_reason: null,
      auth_request: created.auth_request,
      device_id: device.state.deviceId,
      service_pins: pins,
      authorized: true,
      auth_policy: { requirement: null, geofences: [] },
    });
    expect(opened.auth_methods?.map((method) => method.method)).toEqual([
      'wearables',
      'geofencing',
      'locations',
      'pin_code',
      'circle_code',
      'face',
      'fingerprint',
    ]);
    // The deprecated package says the same to a reader that only knows it.
    expect(decryptLegacyAuthPackage(body.auth as string, scene.serviceKey.privateKey)).toEqual({
      auth_request: created.auth_request,
      response: true,
      device_id: device.state.deviceId,
      service_pins: pins,
    });
    const legacyOnly = await openAuthorizationResponse(
      { ...body, auth_jwe: null },
      new Map([[scene.serviceKey.kid, scene.serviceKey.privateKey]]),
    );
    expect(legacyOnly).toMatchObject({ type: null, authorized: true, device_id: device.state.deviceId });
  });

  it('rotates the service pins as a FIFO of five', async () => {
    const seen: string[][] = [];
    for (let answer = 0; answer < 6; answer++) {
      const { opened } = await askAndAnswer({}, device);
      seen.push([...opened.service_pins]);
    }
    const last = seen.at(-1) as string[];
    expect(last).toHaveLength(5);
    expect(last.slice(0, 4)).toEqual(seen.at(-2)?.slice(1));
  });

  it('keeps the user hashes and push id stable per service, and takes the push id as username', async () => {
    const first = await askAndAnswer({}, device);
    const second = await askAndAnswer({ username: first.read.body?.user_push_id }, device);
    expect(second.read.body?.service_user_hash).toBe(first.read.body?.service_user_hash);
    expect(second.read.body?.org_user_hash).toBe(first.read.body?.org_user_hash);
    expect(second.read.body?.user_push_id).toBe(first.read.body?.user_push_id);
    expect(first.read.body?.service_user_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.read.body?.service_user_hash).not.toContain('alice');
  });
});

describe('every answer the authenticator can give', () => {
  it('denies without a reason: DENIED/DISAPPROVED', async () => {
    const { opened } = await askAndAnswer({ denial_reasons: denialReasons }, device, { approve: false });
    expect(opened).toMatchObject({
      type: 'DENIED',
      reason: 'DISAPPROVED',
      denial_reason: null,
      authorized: false,
    });
  });

  it('denies with a reason that is not fraud: DENIED/DISAPPROVED naming it', async () => {
    const { opened } = await askAndAnswer({ denial_reasons: denialReasons }, device, {
      approve: false,
      denialReason: 'LATER',
    });
    expect(opened).toMatchObject({ type: 'DENIED', reason: 'DISAPPROVED', denial_reason: 'LATER' });
  });

  it('denies with a fraud reason: DENIED/FRAUDULENT', async () => {
    const { opened, read } = await askAndAnswer({ denial_reasons: denialReasons }, device, {
      approve: false,
      denialReason: 'NOTME',
    });
    expect(opened).toMatchObject({ type: 'DENIED', reason: 'FRAUDULENT', denial_reason: 'NOTME' });
    expect(decryptLegacyAuthPackage(read.body?.auth as string, scene.serviceKey.privateKey)).toMatchObject({
      response: false,
    });
  });

  it('fails a policy the device cannot meet: FAILED/POLICY', async () => {
    const { opened } = await askAndAnswer({ policy: amountPolicy(3) }, device);
    expect(opened).toMatchObject({
      type: 'FAILED',
      reason: 'POLICY',
      auth_policy: { requirement: 'amount', amount: 3 },
    });
  });

  it('fails a method that does not verify: FAILED/AUTHENTICATION', async () => {
    const { opened } = await askAndAnswer(
      { policy: amountPolicy(1) },
      configured(withMethod('pin_code', { verifies: false })),
    );
    expect(opened).toMatchObject({ type: 'FAILED', reason: 'AUTHENTICATION' });
    expect(opened.auth_methods?.find((method) => method.method === 'pin_code')).toMatchObject({
      passed: false,
      error: false,
    });
  });

  it('fails when the device does not support what is needed: FAILED/CONFIGURATION', async () => {
    const { opened } = await askAndAnswer(
      { policy: inherencePolicy },
      configured(withMethod('fingerprint', { supported: false })),
    );
    expect(opened).toMatchObject({
      type: 'FAILED',
      reason: 'CONFIGURATION',
      auth_policy: { requirement: 'types', types: ['inherence'] },
    });
  });

  it('fails when an OS permission is missing: FAILED/PERMISSION', async () => {
    const { opened } = await askAndAnswer(
      { policy: inherencePolicy },
      configured(withMethod('fingerprint', { permission: false })),
    );
    expect(opened).toMatchObject({ type: 'FAILED', reason: 'PERMISSION' });
  });

  it('fails while a local request is pending: FAILED/BUSY_LOCAL', async () => {
    const { opened } = await askAndAnswer({}, configured({ ...defaultConfiguration, busyLocal: true }));
    expect(opened).toMatchObject({ type: 'FAILED', reason: 'BUSY_LOCAL' });
  });

  it('approves inside a geofence and fails outside it', async () => {
    const geofenced = {
      minimum_requirements: [],
      factors: [
        {
          factor: 'geofence',
          requirement: 'forced requirement',
          priority: 1,
          attributes: { locations: [{ name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 }] },
        },
      ],
    };
    const at = (latitude: number, longitude: number) =>
      configured({ ...defaultConfiguration, location: { latitude, longitude } });
    const inside = await askAndAnswer({ policy: geofenced }, at(36.121, -115.171));
    expect(inside.opened).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
    expect(inside.opened.auth_policy).toMatchObject({
      geofences: [{ name: 'Office', latitude: 36.12, longitude: -115.17, radius: 500 }],
    });
    const outside = await askAndAnswer({ policy: geofenced }, at(40.7, -74));
    expect(outside.opened).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
  });

  it('merges the request policy into the service policy, the stricter winning', async () => {
    await scene.organization.client.call('PUT', '/directory/v3/service/policy', {
      subject: `dir:${scene.directoryId}`,
      body: {
        service_id: scene.serviceId,
        policy: {
          type: 'METHOD_AMOUNT',
          amount: 2,
          deny_rooted_jailbroken: false,
          deny_emulator_simulator: false,
        },
      },
    });
    try {
      const looser = await askAndAnswer({ policy: amountPolicy(1) }, device);
      expect(looser.opened.auth_policy).toMatchObject({ requirement: 'amount', amount: 2 });
      expect(looser.opened).toMatchObject({ type: 'AUTHORIZED', reason: 'APPROVED' });
      expect(
        looser.opened.auth_methods?.filter((method) => method.passed === true).map((method) => method.method),
      ).toEqual(['pin_code', 'fingerprint']);
      const stricter = await askAndAnswer({ policy: amountPolicy(3) }, device);
      expect(stricter.opened).toMatchObject({ type: 'FAILED', reason: 'POLICY' });
    } finally {
      await scene.organization.client.call('DELETE', '/directory/v3/service/policy', {
        subject: `dir:${scene.directoryId}`,
        body: { service_id: scene.serviceId },
      });
    }
  });
});

describe('the kind of policy the service set', () => {
  it('a METHOD_AMOUNT of 0 with a territory reaches the device as "amount" and comes back as requirement "amount"', async () => {
    const asDirectory = { subject: `dir:${scene.directoryId}` };
    const territory = { type: 'TERRITORY', name: 'Nevada', country: 'US', administrative_area: 'US-NV' };
    await scene.organization.client.call('PUT', '/directory/v3/service/policy', {
      ...asDirectory,
      body: {
        service_id: scene.serviceId,
        policy: { type: 'METHOD_AMOUNT', amount: 0, fences: [territory] },
      },
    });
    try {
      const created = await scene.ask({ username: 'alice' });
      const [pending] = await device.pending();
      expect(pending?.policy).toMatchObject({ demand: { kind: 'amount', amount: 0, types: [] } });
      await scene.service.call('DELETE', `/service/v3/auths/${created.auth_request}`);
      // The device cannot locate itself, so it fails the request; its report still says what the service asked for.
      const { opened } = await askAndAnswer({}, device);
      expect(opened.auth_policy).toEqual({
        requirement: 'amount',
        amount: 0,
        geofences: [{ ...territory, postal_code: null }],
      });
    } finally {
      await scene.organization.client.call('DELETE', '/directory/v3/service/policy', {
        ...asDirectory,
        body: { service_id: scene.serviceId },
      });
    }
  });
});

describe('organization credentials acting for the service', () => {
  it('get the answer encrypted to the organization key, which opens it', async () => {
    const created = await scene.ask({ username: 'alice' }, scene.organization.client);
    const [pending] = await device.pending();
    const organizationKey = createPrivateKey(scene.organization.privateKeyPem);
    expect(pending?.requester).toMatchObject({
      entity: scene.organization.issuer,
      kid: keyId(organizationKey),
    });
    const answered = await device.answer(pending as NonNullable<typeof pending>, { approve: true });
    device = new Authenticator(answered.state);
    const read = await scene.read(created.auth_request, scene.organization.client);
    const body = read.body as NonNullable<typeof read.body>;
    expect(body.public_key_id).toBe(keyId(organizationKey));
    const opened = await openAuthorizationResponse(
      body,
      new Map([[keyId(organizationKey), organizationKey]]),
    );
    expect(opened).toMatchObject({
      type: 'AUTHORIZED',
      reason: 'APPROVED',
      auth_request: created.auth_request,
    });
    // The service's own key cannot open what was sealed for its organization.
    await expect(scene.open(body)).rejects.toThrow();
  });
});
