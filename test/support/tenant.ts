import { Authenticator, linkAuthenticator } from '#shared/authenticator/authenticator';
import type { ApiClient } from '#shared/client/api-client';

/** A directory with an SDK key and a Directory Service, made by an organization's client over the API. */
export interface Tenant {
  readonly directoryId: string;
  readonly sdkKey: string;
  readonly serviceId: string;
  /** `svc:<serviceId>`, for the organization acting for its service. */
  readonly subject: string;
  /** Starts a device link for the user and links a fresh authenticator with it. */
  linkUser(identifier: string): Promise<Authenticator>;
}

export async function setUpTenant(
  organization: ApiClient,
  baseUrl: string,
  options: {
    readonly name: string;
    readonly callbackUrl?: string;
    /** How the authenticators reach the service; the global fetch unless given (the bench calls handlers in-process). */
    readonly fetch?: typeof globalThis.fetch;
  },
): Promise<Tenant> {
  const directoryId = (
    await organization.call<{ id: string }>('POST', '/organization/v3/directories', {
      body: { name: options.name },
    })
  ).body?.id as string;
  const sdkKey = (
    await organization.call<{ sdk_key: string }>('POST', '/organization/v3/directory/sdk-keys', {
      body: { directory_id: directoryId },
    })
  ).body?.sdk_key as string;
  const asDirectory = { subject: `dir:${directoryId}` };
  const serviceId = (
    await organization.call<{ id: string }>('POST', '/directory/v3/services', {
      ...asDirectory,
      body: {
        name: `${options.name} service`,
        ...(options.callbackUrl ? { callback_url: options.callbackUrl } : {}),
      },
    })
  ).body?.id as string;
  return {
    directoryId,
    sdkKey,
    serviceId,
    subject: `svc:${serviceId}`,
    async linkUser(identifier) {
      const code = (
        await organization.call<{ code: string }>('POST', '/directory/v3/devices', {
          ...asDirectory,
          body: { identifier },
        })
      ).body?.code as string;
      const transport = options.fetch ? { fetch: options.fetch } : {};
      return new Authenticator(await linkAuthenticator({ baseUrl, sdkKey, code, ...transport }), transport);
    },
  };
}
