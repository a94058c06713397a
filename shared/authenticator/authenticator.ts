import { type AnswerPackages, sealAnswer } from '#shared/authenticator/answer-packages';
import { type DenialWithoutCodeBody, denialWithoutCode } from '#shared/authenticator/denial-without-code';
import { type Decision, type Evaluation, evaluate } from '#shared/authenticator/evaluate';
import { type DeviceKeys, pemDeviceKeys } from '#shared/authenticator/host';
import { rotateServicePins } from '#shared/authenticator/service-pins';
import {
  type AuthenticatorState,
  type DeviceConfiguration,
  defaultConfiguration,
  deviceStateAt,
  type LinkedDevice,
} from '#shared/authenticator/state';
import { ApiClient } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { parseEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import type { SessionView } from '#shared/use-cases/sessions';
import type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
import type { LinkRequestView, LinkStateView } from '#shared/use-cases/device-confirmation';

export type { PendingAuthRequestView } from '#shared/use-cases/device-auth-requests';
export type { LinkRequestView, LinkStateView } from '#shared/use-cases/device-confirmation';

/** How often an answer is sent while the service answers 5xx or cannot be reached, and the pause that grows between. */
const answerAttempts = 4;
const retryPauseMs = 250;

export interface LinkOptions<S extends LinkedDevice = AuthenticatorState> {
  readonly baseUrl: string;
  /** An SDK key of the directory the code links to; a device linking from the web authenticator has none. */
  readonly sdkKey?: string;
  readonly code: string;
  readonly name?: string;
  readonly type?: string;
  readonly keyBits?: number;
  readonly configuration?: DeviceConfiguration;
  readonly fetch?: typeof fetch;
  /** How the host makes and keeps the key; the CLI's PEM keys when absent. */
  readonly keys?: DeviceKeys<S>;
}

/** What the user does with a request: approve it, or deny it, with one of the request's denial reasons or none. */
export type UserChoice = (
  { readonly approve: true } | { readonly approve: false; readonly denialReason?: string }
) & {
  /**
   * The code the application shows, as the user typed it: a request with `number_match` needs it to be approved.
   * Denied without it, the denial goes in the clear (docs/protocol.md#number-matching).
   */
  readonly numberMatchCode?: string;
};

export interface AnsweredRequest<S extends LinkedDevice = AuthenticatorState> {
  readonly evaluation: Evaluation;
  /** The state to keep: the service's pins have rotated. */
  readonly state: S;
}

/** Reads `<base>/public/v3/qrcodes/<code>` (the `qrcode` URL of a device link) as the base URL and the code. */
export function parseQrCodeUrl(url: string): { baseUrl: string; code: string } {
  const match = /^(https?:\/\/.+?)\/public\/v3\/qrcodes\/([A-Z0-9]{7,16})\/?$/.exec(url);
  if (!match?.[1] || !match[2]) throw new Error(`${url} is not a linking code URL of this service`);
  return { baseUrl: match[1], code: match[2] };
}

/** Links a new device: makes its key pair and registers the public half with the code (and the SDK key). */
export async function linkAuthenticator(options: LinkOptions): Promise<AuthenticatorState>;
export async function linkAuthenticator<S extends LinkedDevice>(
  options: LinkOptions<S> & { readonly keys: DeviceKeys<S> },
): Promise<S>;
export async function linkAuthenticator(options: LinkOptions<LinkedDevice>): Promise<LinkedDevice> {
  const keys = options.keys ?? pemDeviceKeys;
  const { key, kept } = await keys.create(options.keyBits ?? 2048);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const response = await (options.fetch ?? fetch)(`${baseUrl}/device/v3/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...(options.sdkKey === undefined ? {} : { sdk_key: options.sdkKey }),
      code: options.code,
      public_key: key.publicKeyPem,
      ...(options.name ? { name: options.name } : {}),
      ...(options.type ? { type: options.type } : {}),
    }),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status !== 201) {
    throw new ApiRequestError(
      response.status,
      typeof body.error_code === 'string' ? body.error_code : undefined,
      body.error_detail ?? response.statusText,
      typeof body.error_data === 'object' && body.error_data !== null
        ? (body.error_data as Record<string, unknown>)
        : undefined,
    );
  }
  return {
    ...kept,
    version: 1,
    baseUrl,
    deviceId: body.device_id as string,
    directoryId: body.directory_id as string,
    configuration: options.configuration ?? defaultConfiguration,
    servicePins: {},
  };
}

/**
 * The reference authenticator: a linked device that signs as `dev:<device_id>`, evaluates each request's merged
 * policy against its configuration, and answers with packages only the requester (and, for v1, the service) can read.
 */
export class Authenticator<S extends LinkedDevice = AuthenticatorState> {
  private readonly client: ApiClient;

  /** `keys` opens the device's key out of its state: the CLI's PEM keys when absent. */
  constructor(
    readonly state: S,
    options: { readonly fetch?: typeof fetch; readonly keys?: DeviceKeys<S> } = {},
  ) {
    const keys = options.keys ?? (pemDeviceKeys as unknown as DeviceKeys<S>);
    this.client = new ApiClient({
      baseUrl: state.baseUrl,
      issuer: `dev:${state.deviceId}`,
      key: keys.open(state),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** The requests this device may answer now. */
  async pending(): Promise<PendingAuthRequestView[]> {
    return (await this.client.call<PendingAuthRequestView[]>('GET', '/device/v3/auths')).body ?? [];
  }

  /**
   * Evaluates the request as the user chose and sends the sealed answer; the pins rotate only once it is accepted. A
   * denial of a request with number matching without the code goes in the clear instead.
   */
  async answer(
    request: PendingAuthRequestView,
    choice: UserChoice,
    now = new Date(),
  ): Promise<AnsweredRequest<S>> {
    const evaluation = evaluate(
      parseEffectivePolicy(request.policy),
      deviceStateAt(this.state.configuration, now),
      this.decision(request, choice),
    );
    const path = `/device/v3/auths/${request.auth_request}`;
    if (request.number_match && !choice.approve && choice.numberMatchCode === undefined) {
      // No pins go out with it, so none rotate.
      await this.send(path, denialWithoutCode(evaluation));
      return { evaluation, state: this.state };
    }
    const serviceId = request.service.id;
    const servicePins = rotateServicePins(this.state.servicePins[serviceId] ?? []);
    const packages = await sealAnswer(request, {
      authRequest: request.auth_request,
      deviceId: this.state.deviceId,
      servicePins,
      evaluation,
    });
    // The service cannot read the sealed answer: a fraud denial and the typed code travel beside it.
    await this.send(path, {
      ...packages,
      ...(evaluation.reason === 'FRAUDULENT' ? { fraud: true } : {}),
      ...(choice.numberMatchCode === undefined ? {} : { number_match_code: choice.numberMatchCode }),
    });
    return {
      evaluation,
      state: { ...this.state, servicePins: { ...this.state.servicePins, [serviceId]: servicePins } },
    };
  }

  /**
   * Posts an answer, resending the very same packages (or the same denial without the code) while the service is unavailable: the service records an
   * answer once and takes the same one again as a success, so a retry can neither lose the answer nor change it.
   */
  private async send(
    path: string,
    packages: (AnswerPackages & { fraud?: true; number_match_code?: string }) | DenialWithoutCodeBody,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.call('POST', path, { body: packages });
        return;
      } catch (error) {
        const transient =
          (error instanceof ApiRequestError && error.status >= 500) || error instanceof TypeError;
        if (!transient || attempt >= answerAttempts) throw error;
        await sleep(retryPauseMs * attempt);
      }
    }
  }

  async sessions(): Promise<SessionView[]> {
    return (await this.client.call<SessionView[]>('GET', '/device/v3/sessions')).body ?? [];
  }

  /** Ends the user's session with a service; the service receives a Session Ended event. */
  async logout(serviceId: string): Promise<void> {
    await this.client.call('DELETE', '/device/v3/sessions', { body: { service_id: serviceId } });
  }

  /** The service's VAPID public key, and the type of this device's push channel (or null). */
  async pushSettings(): Promise<{ vapid_public_key: string; channel: string | null }> {
    const { body } = await this.client.call<{ vapid_public_key: string; channel: string | null }>(
      'GET',
      '/device/v3/push',
    );
    if (!body) throw new Error('GET /device/v3/push answered no body');
    return body;
  }

  /** Registers a Web Push subscription (what `PushSubscription.toJSON()` gives) as this device's push channel. */
  async registerWebPush(subscription: {
    endpoint: string;
    keys: { p256dh: string; auth: string };
  }): Promise<void> {
    await this.registerPush({ webpush: subscription });
  }

  /** Registers this device's push channel: a Web Push subscription, or an app's APNs or FCM token. */
  async registerPush(
    channel:
      | { webpush: { endpoint: string; keys: { p256dh: string; auth: string } } }
      | { apns: { token: string; environment?: 'production' | 'sandbox' } }
      | { fcm: { token: string } },
  ): Promise<void> {
    await this.client.call('PUT', '/device/v3/push', { body: channel });
  }

  /** Removes this device's push channel. */
  async removePush(): Promise<void> {
    await this.client.call('DELETE', '/device/v3/push');
  }

  /** How this device's link stands: linked, or still awaiting a linked device's confirmation. */
  async linkState(): Promise<LinkStateView> {
    const { body } = await this.client.call<LinkStateView>('GET', '/device/v3/link');
    if (!body) throw new Error('GET /device/v3/link answered no body');
    return body;
  }

  /** The user's new devices waiting for this device to confirm them ("a new device wants to join"). */
  async linkRequests(): Promise<LinkRequestView[]> {
    return (await this.client.call<LinkRequestView[]>('GET', '/device/v3/link-requests')).body ?? [];
  }

  /** Approves (links) or refuses (removes) a new device of the user. */
  async answerLinkRequest(deviceId: string, approve: boolean): Promise<void> {
    await this.client.call('POST', `/device/v3/link-requests/${encodeURIComponent(deviceId)}`, {
      body: { approve },
    });
  }

  /** Unlinks this device: its key stops working at once. */
  async unlink(): Promise<void> {
    await this.client.call('DELETE', '/device/v3/link');
  }

  private decision(request: PendingAuthRequestView, choice: UserChoice): Decision {
    if (choice.approve) return { kind: 'approve' };
    if (choice.denialReason === undefined) return { kind: 'deny' };
    const reason = request.denial_reasons?.find((candidate) => candidate.id === choice.denialReason);
    if (!reason) {
      const offered = request.denial_reasons?.map((candidate) => candidate.id).join(', ');
      throw new Error(
        `The request offers no denial reason "${choice.denialReason}"${offered ? ` (it offers ${offered})` : ''}`,
      );
    }
    return { kind: 'deny', denialReason: { id: reason.id, fraud: reason.fraud } };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => globalThis.setTimeout(resolve, ms));
}
