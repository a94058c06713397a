import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '#shared/client/api-client';
import type { AuthorizationResponseBody } from '#shared/client/authorization-response';
import type { ApiRequestError } from '#shared/client/errors';
import type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
import { type AuthScene, deviceClient, newAuthScene } from '#test/support/auth-scene';
import { send } from '#test/support/forge';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';
import { refusal } from '#test/support/tree';
import { SoftwareAuthenticator, type Tampering } from '#test/support/webauthn-authenticator';

/**
 * Passkeys on the device API (docs/protocol.md#passkeys), as the web authenticator uses them: reached at `localhost`,
 * which is the RP id, registering a passkey and then answering each request with an assertion the API verifies.
 */
let runtime: TestRuntime;
let scene: AuthScene;
/** The API as the browser reaches it locally: http://localhost:<port>. */
let origin: string;

beforeAll(async () => {
  runtime = await startTestRuntime();
  scene = await newAuthScene(runtime);
  const url = new URL(runtime.baseUrl);
  url.hostname = 'localhost';
  origin = url.origin;
});
afterAll(async () => {
  await runtime?.stop();
});

interface PasskeyDevice {
  readonly client: ApiClient;
  readonly identifier: string;
  readonly authenticator: SoftwareAuthenticator;
}

/** A linked device of a new user, signing its requests to the API at `localhost`. */
async function linkedDevice(identifier: string): Promise<PasskeyDevice> {
  const linked = await scene.linkDevice(identifier);
  return {
    identifier,
    client: deviceClient(origin, linked),
    authenticator: new SoftwareAuthenticator(origin),
  };
}

async function registrationOptions(device: PasskeyDevice) {
  return (
    await device.client.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/device/v3/passkey/options')
  ).body as PublicKeyCredentialCreationOptionsJSON;
}

async function register(device: PasskeyDevice, tampering: Tampering = {}) {
  const options = await registrationOptions(device);
  return device.client.call('PUT', '/device/v3/passkey', {
    body: { registration: device.authenticator.register(options, tampering) },
  });
}

/** A device with its passkey registered. */
async function passkeyDevice(identifier: string): Promise<PasskeyDevice> {
  const device = await linkedDevice(identifier);
  expect((await register(device)).status).toBe(204);
  return device;
}

async function pending(device: PasskeyDevice): Promise<PendingAuthRequestView> {
  const [request] =
    (await device.client.call<PendingAuthRequestView[]>('GET', '/device/v3/auths')).body ?? [];
  if (!request) throw new Error('Nothing pending');
  return request;
}

/** The assertion a request asks of a device with a passkey. */
function challengeOf(request: PendingAuthRequestView) {
  if (!request.webauthn) throw new Error('The request asks for no assertion');
  return request.webauthn;
}

const authJwe = (tag: string) => `h.k.i.${'c'.repeat(40)}.${tag}`;

function answer(device: PasskeyDevice, authRequest: string, webauthn?: unknown, tag = 't') {
  return device.client.call('POST', `/device/v3/auths/${authRequest}`, {
    body: { auth_jwe: authJwe(tag), ...(webauthn === undefined ? {} : { webauthn }) },
  });
}

/** The request as the service polls it: still pending (no body yet) or answered. */
async function serviceSees(authRequest: string) {
  const read = await scene.read(authRequest);
  return read.status === 200 ? { answered: (read.body as AuthorizationResponseBody).auth_jwe } : 'pending';
}

async function refused(call: Promise<unknown>) {
  const error: ApiRequestError = await refusal(call);
  return { status: error.status, code: error.errorCode, detail: String(error.errorDetail) };
}

/** fetch, except that every request names `host` in its Host header, as any client can. */
function fetchNamingHost(host: string): typeof fetch {
  return async (input, init) =>
    send(
      input instanceof Request ? input.url : input.toString(),
      init?.method ?? 'GET',
      { ...(init?.headers as Record<string, string> | undefined), host },
      init?.body as string | undefined,
    );
}

describe('the relying party', () => {
  it.each([
    ['a forged Host header', 'evil.example'],
    ['the loopback address the API listens on', '127.0.0.1'],
  ])('is localhost whatever %s names, and a passkey made for that origin is refused', async (_, hostname) => {
    const linked = await scene.linkDevice(`host-${hostname}`);
    const host = `${hostname}:${new URL(runtime.baseUrl).port}`;
    const client = new ApiClient({
      baseUrl: runtime.baseUrl,
      issuer: `dev:${linked.state.deviceId}`,
      privateKeyPem: linked.state.privateKeyPem,
      fetch: fetchNamingHost(host),
    });
    const options = (
      await client.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/device/v3/passkey/options')
    ).body as PublicKeyCredentialCreationOptionsJSON;
    expect(options.rp.id).toBe('localhost');
    const registration = new SoftwareAuthenticator(`http://${host}`).register(options, { rpId: hostname });
    expect(await refused(client.call('PUT', '/device/v3/passkey', { body: { registration } }))).toMatchObject(
      {
        status: 403,
        detail: expect.stringMatching(/another origin|another relying party/),
      },
    );
  });
});

describe('registering a passkey', () => {
  it('gives platform, user-verification-required options for the RP id localhost, and keeps the credential', async () => {
    const device = await linkedDevice('pia');
    const options = await registrationOptions(device);
    expect(options).toMatchObject({
      rp: { id: 'localhost' },
      attestation: 'none',
      authenticatorSelection: { authenticatorAttachment: 'platform', userVerification: 'required' },
    });
    expect(
      (
        await device.client.call('PUT', '/device/v3/passkey', {
          body: { registration: device.authenticator.register(options) },
        })
      ).status,
    ).toBe(204);
    const { auth_request } = await scene.ask({ username: 'pia' });
    expect((await pending(device)).webauthn).toEqual({
      challenge: expect.stringMatching(/^[\w-]{43}$/),
      rp_id: 'localhost',
      allow_credentials: [device.authenticator.id],
    });
    expect((await pending(device)).auth_request).toBe(auth_request);
  });

  it('uses each challenge once, and refuses one made for another origin, RP id, or without user verification', async () => {
    const device = await linkedDevice('quin');
    const options = await registrationOptions(device);
    const registration = device.authenticator.register(options);
    const put = (body: unknown) =>
      device.client.call('PUT', '/device/v3/passkey', { body: { registration: body } });
    const wrong = await Promise.all([
      refused(put(device.authenticator.register(options, { origin: 'https://evil.example' }))),
      refused(put(device.authenticator.register(options, { rpId: 'evil.example' }))),
      refused(put(device.authenticator.register(options, { userVerified: false }))),
      refused(put(device.authenticator.register(options, { challenge: 'AAAA' }))),
    ]);
    expect(wrong.map(({ status, code }) => ({ status, code }))).toEqual(
      Array(4).fill({ status: 403, code: 'HTTP-403' }),
    );
    expect(wrong.map(({ detail }) => detail.replace(/^.*does not verify: /, ''))).toEqual([
      'it was made on another origin',
      'it is for another relying party (RP id)',
      'the authenticator did not verify the user',
      'it is not over the challenge given for it',
    ]);
    expect((await put(registration)).status).toBe(204);
    expect(await refused(put(registration))).toMatchObject({ status: 403, code: 'HTTP-403' });
  });

  it('refuses a second passkey, so that whoever holds the device key cannot swap in their own', async () => {
    const device = await passkeyDevice('rhea');
    const first = device.authenticator;
    const intruder = { ...device, authenticator: new SoftwareAuthenticator(origin) };
    expect(await refused(registrationOptions(intruder))).toMatchObject({ status: 403, code: 'HTTP-403' });
    const { auth_request } = await scene.ask({ username: 'rhea' });
    const request = await pending(device);
    expect(request.webauthn?.allow_credentials).toEqual([first.id]);
    expect(
      await refused(answer(device, auth_request, intruder.authenticator.assert(challengeOf(request)))),
    ).toMatchObject({ status: 403 });
    expect((await answer(device, auth_request, first.assert(challengeOf(request)))).status).toBe(204);
  });
});

describe('answering with a passkey', () => {
  it('records an answer whose assertion verifies', async () => {
    const device = await passkeyDevice('sami');
    const { auth_request } = await scene.ask({ username: 'sami' });
    const request = await pending(device);
    expect(
      (await answer(device, auth_request, device.authenticator.assert(challengeOf(request)))).status,
    ).toBe(204);
    expect(await serviceSees(auth_request)).toEqual({ answered: authJwe('t') });
  });

  it('refuses an answer without an assertion, and the request stays pending', async () => {
    const device = await passkeyDevice('tove');
    const { auth_request } = await scene.ask({ username: 'tove' });
    expect(await refused(answer(device, auth_request))).toMatchObject({
      status: 400,
      code: 'ARG-001',
      detail: expect.stringMatching(/^webauthn: this device has a passkey/),
    });
    expect(await serviceSees(auth_request)).toBe('pending');
  });

  it.each<[string, Tampering, string]>([
    ['made on another origin', { origin: 'https://evil.example' }, 'it was made on another origin'],
    ['for another RP id', { rpId: 'evil.example' }, 'it is for another relying party (RP id)'],
    ['without user verification', { userVerified: false }, 'the authenticator did not verify the user'],
  ])('refuses an assertion %s, and the request stays pending', async (_, tampering, reason) => {
    const identifier = `tampered-${reason.length}`;
    const device = await passkeyDevice(identifier);
    const { auth_request } = await scene.ask({ username: identifier });
    const request = await pending(device);
    expect(
      await refused(
        answer(device, auth_request, device.authenticator.assert(challengeOf(request), tampering)),
      ),
    ).toEqual({
      status: 403,
      code: 'HTTP-403',
      detail: `webauthn: The passkey assertion does not verify: ${reason}`,
    });
    expect(await serviceSees(auth_request)).toBe('pending');
    // The right assertion still answers.
    expect(
      (await answer(device, auth_request, device.authenticator.assert(challengeOf(request)))).status,
    ).toBe(204);
  });

  it("refuses an assertion over another request's challenge", async () => {
    const device = await passkeyDevice('ugo');
    const first = await scene.ask({ username: 'ugo' });
    const firstChallenge = challengeOf(await pending(device));
    await scene.service.call('DELETE', `/service/v3/auths/${first.auth_request}`, {
      subject: `svc:${scene.serviceId}`,
    });
    const second = await scene.ask({ username: 'ugo' });
    const request = await pending(device);
    expect(request.webauthn?.challenge).not.toBe(firstChallenge.challenge);
    expect(
      await refused(answer(device, second.auth_request, device.authenticator.assert(firstChallenge))),
    ).toEqual({
      status: 403,
      code: 'HTTP-403',
      detail: 'webauthn: The passkey assertion does not verify: it is not over the challenge given for it',
    });
    expect(await serviceSees(second.auth_request)).toBe('pending');
  });

  it('refuses a replayed signature counter, and the request stays pending', async () => {
    const device = await passkeyDevice('vik');
    const first = await scene.ask({ username: 'vik' });
    const firstRequest = await pending(device);
    expect(
      (await answer(device, first.auth_request, device.authenticator.assert(challengeOf(firstRequest))))
        .status,
    ).toBe(204);
    const used = device.authenticator.counter;
    const second = await scene.ask({ username: 'vik' });
    const request = await pending(device);
    expect(
      await refused(
        answer(
          device,
          second.auth_request,
          device.authenticator.assert(challengeOf(request), { counter: used }),
        ),
      ),
    ).toEqual({
      status: 403,
      code: 'HTTP-403',
      detail:
        'webauthn: The passkey assertion does not verify: it was used before (its signature counter did not grow)',
    });
    expect(await serviceSees(second.auth_request)).toBe('pending');
  });

  it('takes the same answer again as a retry, its assertion used already', async () => {
    const device = await passkeyDevice('wim');
    const { auth_request } = await scene.ask({ username: 'wim' });
    const assertion = device.authenticator.assert(challengeOf(await pending(device)));
    expect((await answer(device, auth_request, assertion)).status).toBe(204);
    expect((await answer(device, auth_request, assertion)).status).toBe(204);
    expect(await refused(answer(device, auth_request, assertion, 'other'))).toMatchObject({ status: 403 });
  });
});

describe('a device without a passkey', () => {
  it('answers as before, is shown no challenge, and may not send an assertion', async () => {
    const device = await linkedDevice('xena');
    const first = await scene.ask({ username: 'xena' });
    const request = await pending(device);
    expect(request.webauthn).toBeUndefined();
    const stray = device.authenticator.assert({ challenge: 'AAAA', rp_id: 'localhost' });
    expect(await refused(answer(device, first.auth_request, stray))).toMatchObject({
      status: 403,
      code: 'HTTP-403',
      detail: 'webauthn: this device has no passkey to check an assertion against',
    });
    expect((await answer(device, first.auth_request)).status).toBe(204);
    expect(await serviceSees(first.auth_request)).toEqual({ answered: authJwe('t') });
  });
});
