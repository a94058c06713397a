import { randomUUID } from 'node:crypto';
import { ApiClient, type ApiClientOptions } from '#shared/client/api-client';
import { ApiRequestError } from '#shared/client/errors';
import { rsaKeyPair } from '#test/support/keys';
import type { TestRuntime } from '#test/support/runtime';

/** A name no other test uses: service names are unique across the whole service. */
export function uniqueName(prefix: string): string {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly issuer: string;
  readonly client: ApiClient;
  readonly privateKeyPem: string;
}

/** A fresh organization, as the admin CLI makes one, and a client signing for it. */
export async function newOrganization(
  service: TestRuntime,
  options: Partial<ApiClientOptions> = {},
): Promise<Organization> {
  const { createOrganization } = await import('#shared/use-cases/create-organization');
  const created = await createOrganization({ name: uniqueName('Org') });
  const privateKeyPem = created.privateKeyPem as string;
  const issuer = `org:${created.organization.id}`;
  return {
    id: created.organization.id,
    name: created.organization.name,
    issuer,
    privateKeyPem,
    client: new ApiClient({ baseUrl: service.baseUrl, issuer, privateKeyPem, ...options }),
  };
}

export async function createDirectory(
  organization: Organization,
  name = uniqueName('Directory'),
): Promise<string> {
  const { body } = await organization.client.call<{ id: string }>('POST', '/organization/v3/directories', {
    body: { name },
  });
  return (body as { id: string }).id;
}

/** Gives a directory a key of its own through its organization and returns a client that signs as the directory. */
export async function directoryClient(
  service: TestRuntime,
  organization: Organization,
  directoryId: string,
  options: Partial<ApiClientOptions> = {},
): Promise<ApiClient> {
  const pair = rsaKeyPair();
  await organization.client.call('POST', '/organization/v3/directory/keys', {
    body: { directory_id: directoryId, public_key: pair.publicPem },
  });
  return new ApiClient({
    baseUrl: service.baseUrl,
    issuer: `dir:${directoryId}`,
    privateKeyPem: pair.privatePem,
    ...options,
  });
}

/** The ApiRequestError a call ends with; fails the test if it succeeds. */
export async function refusal(call: Promise<unknown>): Promise<ApiRequestError> {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof ApiRequestError)) throw outcome.error;
  return outcome.error;
}

/** Status and code of a refusal, for one assertion. */
export async function refusedWith(
  call: Promise<unknown>,
): Promise<{ status: number; code: string | undefined }> {
  const error = await refusal(call);
  return { status: error.status, code: error.errorCode };
}
