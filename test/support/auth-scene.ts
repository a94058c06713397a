import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import { type DeviceConfiguration, defaultConfiguration } from '#shared/authenticator/state';
import { ApiClient, type ApiResponse } from '#shared/client/api-client';
import {
  type AuthorizationResponseBody,
  type DeviceAnswerPackage,
  openAuthorizationResponse,
} from '#shared/client/authorization-response';
import { encryptJson } from '#shared/protocol/jwe';
import { forge, send } from '#test/support/forge';
import { rsaKeyPair, type TestKeyPair } from '#test/support/keys';
import type { TestRuntime } from '#test/support/runtime';
import { createDirectory, newOrganization, type Organization, uniqueName } from '#test/support/tree';

export interface CreatedAuthRequest {
  readonly auth_request: string;
  readonly push_package: string;
  readonly device_ids: string[];
}

/**
 * An organization with a directory (denial reasons enabled unless told otherwise), an SDK key, and a Directory
 * Service that signs with a key of its own: everything an application and its users' devices need.
 */
export interface AuthScene {
  readonly runtime: TestRuntime;
  readonly organization: Organization;
  readonly directoryId: string;
  readonly sdkKey: string;
  readonly serviceId: string;
  readonly serviceKey: TestKeyPair;
  /** Signs as the service itself. */
  readonly service: ApiClient;
  /**
   * Links a fresh authenticator for a (new or existing) directory user; a further device of a user is confirmed by a
   * device this scene linked for the user before (docs/protocol.md#device-confirmation).
   */
  linkDevice(identifier: string, configuration?: DeviceConfiguration): Promise<Authenticator>;
  /** Unlinks a device of a directory user, as the directory. */
  unlinkDevice(identifier: string, deviceId: string): Promise<ApiResponse<unknown>>;
  ask(body: Record<string, unknown>, client?: ApiClient): Promise<CreatedAuthRequest>;
  read(authRequest: string, client?: ApiClient): Promise<ApiResponse<AuthorizationResponseBody>>;
  /** Opens an answer with the service's key (what the service's own credentials receive). */
  open(body: AuthorizationResponseBody): Promise<DeviceAnswerPackage>;
}

export async function newAuthScene(
  runtime: TestRuntime,
  options: { denialInquiry?: boolean } = {},
): Promise<AuthScene> {
  const organization = await newOrganization(runtime);
  const directoryId = await createDirectory(organization);
  await organization.client.call('PATCH', '/organization/v3/directories', {
    body: { directory_id: directoryId, denial_context_inquiry_enabled: options.denialInquiry ?? true },
  });
  const sdkKey = (
    await organization.client.call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', {
      body: { directory_id: directoryId },
    })
  ).body?.sdk_key as string;
  const asDirectory = { subject: `dir:${directoryId}` };
  const serviceId = (
    await organization.client.call<{ id: string }>('POST', '/directory/v3/services', {
      ...asDirectory,
      body: { name: uniqueName('Service'), active: true },
    })
  ).body?.id as string;
  const serviceKey = rsaKeyPair();
  await organization.client.call('POST', '/directory/v3/service/keys', {
    ...asDirectory,
    body: { service_id: serviceId, public_key: serviceKey.publicPem },
  });
  const service = new ApiClient({
    baseUrl: runtime.baseUrl,
    issuer: `svc:${serviceId}`,
    privateKeyPem: serviceKey.privatePem,
  });
  const subject = `svc:${serviceId}`;
  const linked = new Map<string, Authenticator[]>();
  return {
    runtime,
    organization,
    directoryId,
    sdkKey,
    serviceId,
    serviceKey,
    service,
    async linkDevice(identifier, configuration = defaultConfiguration) {
      const started = await organization.client.call<{ code: string }>('POST', '/directory/v3/devices', {
        ...asDirectory,
        body: { identifier },
      });
      const state = await linkAuthenticator({
        baseUrl: runtime.baseUrl,
        sdkKey,
        code: started.body?.code as string,
        configuration,
      });
      const device = new Authenticator(state);
      const earlier = linked.get(identifier) ?? [];
      linked.set(identifier, [...earlier, device]);
      if ((await device.linkState()).status === 'awaiting-confirmation')
        await confirmByAny(earlier, state.deviceId);
      return device;
    },
    unlinkDevice(identifier, deviceId) {
      return organization.client.call('DELETE', '/directory/v3/devices', {
        ...asDirectory,
        body: { identifier, device_id: deviceId },
      });
    },
    async ask(body, client = service) {
      return (await client.call<CreatedAuthRequest>('POST', '/service/v3/auths', { subject, body }))
        .body as CreatedAuthRequest;
    },
    async read(authRequest, client = service) {
      return client.call<AuthorizationResponseBody>('GET', `/service/v3/auths/${authRequest}`, { subject });
    },
    async open(body) {
      return openAuthorizationResponse(body, new Map([[serviceKey.kid, serviceKey.privateKey]]));
    },
  };
}

/** Confirms a new device with the first of the user's earlier devices that still may. */
async function confirmByAny(earlier: readonly Authenticator[], deviceId: string): Promise<void> {
  for (const device of earlier) {
    try {
      await device.answerLinkRequest(deviceId, true);
      return;
    } catch {
      // Unlinked since, or still cooling off: the next one may.
    }
  }
  throw new Error(`No earlier device of this scene could confirm ${deviceId}`);
}

/** A client that signs as `device` (`dev:<device_id>`), for the device API calls its authenticator does not make. */
export function deviceClient(
  baseUrl: string,
  device: { readonly state: { readonly deviceId: string; readonly privateKeyPem: string } },
): ApiClient {
  return new ApiClient({
    baseUrl,
    issuer: `dev:${device.state.deviceId}`,
    privateKeyPem: device.state.privateKeyPem,
  });
}

/**
 * A create signed by hand, so that the very same request (its JWT and body) can be sent again: the request it made,
 * and `replay`, which sends it again and gives the raw response.
 */
export async function replayableCreate(
  scene: AuthScene,
  username: string,
): Promise<{ readonly authRequest: string; replay(): Promise<Response> }> {
  const body = await encryptJson({ username }, await scene.service.currentApiKey());
  const path = '/service/v3/auths';
  const first = await forge({
    baseUrl: scene.runtime.baseUrl,
    issuer: `svc:${scene.serviceId}`,
    kid: scene.serviceKey.kid,
    privateKey: scene.serviceKey.privateKey,
    method: 'POST',
    path,
    body,
  });
  const created = await scene.service.verifyResponse<{ auth_request: string }>(
    first.prepared,
    first.response,
  );
  return {
    authRequest: created.body?.auth_request as string,
    replay: () => send(`${scene.runtime.baseUrl}${path}`, 'POST', first.prepared.headers, body),
  };
}

/** The scene's directory's name, as its organization lists it. */
export async function directoryName(scene: AuthScene): Promise<string> {
  const { body } = await scene.organization.client.call<{ name: string }[]>(
    'POST',
    '/organization/v3/directories/list',
    { body: { directory_ids: [scene.directoryId] } },
  );
  return body?.[0]?.name as string;
}
