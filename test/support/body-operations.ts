import { randomUUID } from 'node:crypto';
import type { FuzzTarget, RawRequest } from '#test/support/fuzz-harness';
import { rsaKeyPair } from '#test/support/keys';
import { denialReasons } from '#test/support/requests';
import { makeServiceAccount } from '#test/support/service-account';
import { setUpTenant } from '#test/support/tenant';

/** An operation that takes a JSON body, with one body its schema accepts (the operation may still refuse it). */
export interface BodyOperation {
  readonly method: string;
  readonly path: string;
  /** The entity the demo organization acts for; undefined for the device's unsigned link request. */
  readonly subject: string | undefined;
  readonly body: Readonly<Record<string, unknown>>;
  /** Fields the schema takes as any JSON (a policy), whose problems are the use case's to name. */
  readonly untyped?: readonly string[];
}

/**
 * One operation for each request schema: the organization's, a directory's and a service's management bodies, the
 * service API's, and the device's link. The tenant they act on is made over the API.
 */
export async function bodyOperations(target: FuzzTarget): Promise<BodyOperation[]> {
  const tenant = await setUpTenant(target.runtime.client(), target.runtime.baseUrl, {
    name: `Fuzz ${randomUUID()}`,
  });
  const org = target.runtime.issuer;
  const dir = `dir:${tenant.directoryId}`;
  const svc = tenant.subject;
  const key = rsaKeyPair();
  // The .invalid top-level domain never resolves: nothing is ever delivered there.
  const url = 'https://fuzz.invalid/hook';
  return [
    {
      method: 'POST',
      path: '/organization/v3/directories',
      subject: org,
      body: { name: `Dir ${randomUUID()}` },
    },
    {
      method: 'POST',
      path: '/organization/v3/directories/list',
      subject: org,
      body: { directory_ids: [tenant.directoryId] },
    },
    {
      method: 'PATCH',
      path: '/organization/v3/directories',
      subject: org,
      body: {
        directory_id: tenant.directoryId,
        active: true,
        android_key: makeServiceAccount().json,
        denial_context_inquiry_enabled: true,
        webhook_url: url,
      },
    },
    {
      method: 'POST',
      path: '/organization/v3/directory/keys',
      subject: org,
      body: {
        directory_id: tenant.directoryId,
        public_key: key.publicPem,
        date_expires: '2099-01-01T00:00:00Z',
        active: true,
        key_type: 2,
      },
    },
    {
      method: 'PATCH',
      path: '/organization/v3/directory/keys',
      subject: org,
      body: { directory_id: tenant.directoryId, key_id: key.kid, active: true },
    },
    {
      method: 'DELETE',
      path: '/organization/v3/directory/sdk-keys',
      subject: org,
      body: { directory_id: tenant.directoryId, sdk_key: randomUUID() },
    },
    {
      method: 'POST',
      path: '/organization/v3/services',
      subject: org,
      body: { name: `Svc ${randomUUID()}`, description: 'fuzz', icon: url, callback_url: url, active: true },
    },
    { method: 'POST', path: '/organization/v3/services/list', subject: org, body: { service_ids: [] } },
    {
      method: 'PUT',
      path: '/directory/v3/service/policy',
      subject: dir,
      body: { service_id: tenant.serviceId, policy: { type: 'METHOD_AMOUNT', amount: 1 } },
      untyped: ['policy'],
    },
    {
      method: 'PATCH',
      path: '/directory/v3/services',
      subject: dir,
      body: { service_id: tenant.serviceId, description: 'fuzz', active: true },
    },
    {
      method: 'POST',
      path: '/directory/v3/devices',
      subject: dir,
      body: { identifier: 'fuzz-user', ttl: 300 },
    },
    {
      method: 'DELETE',
      path: '/directory/v3/devices',
      subject: dir,
      body: { identifier: 'fuzz-user', device_id: randomUUID() },
    },
    {
      method: 'POST',
      path: '/service/v3/auths',
      subject: svc,
      body: {
        username: 'nobody',
        context: 'fuzz',
        title: 'Fuzz',
        ttl: 300,
        push_title: 'Fuzz',
        push_body: 'Fuzz',
        denial_reasons: denialReasons,
      },
    },
    {
      method: 'POST',
      path: '/service/v3/sessions',
      subject: svc,
      body: { username: 'nobody', auth_request: randomUUID() },
    },
    { method: 'POST', path: '/service/v3/totp', subject: svc, body: { identifier: 'nobody', otp: '123456' } },
    {
      method: 'POST',
      path: '/device/v3/link',
      subject: undefined,
      body: {
        sdk_key: randomUUID(),
        code: 'FUZZ2345',
        public_key: key.publicPem,
        name: 'Fuzz',
        type: 'Fuzz',
      },
    },
  ];
}

/**
 * The request a client sends for the operation: JSON text encrypted and signed, or plain for the device's link; or
 * raw bytes exactly as given, signed for what they are.
 */
export async function bodyRequest(
  target: FuzzTarget,
  operation: BodyOperation,
  body: { readonly json: string } | { readonly raw: string | Buffer },
): Promise<RawRequest> {
  const { method, path, subject } = operation;
  if (subject === undefined) {
    const plain = 'json' in body ? body.json : body.raw;
    return { method, target: path, headers: { 'content-type': 'application/json' }, body: plain };
  }
  return 'json' in body
    ? target.sign({ method, target: path, subject, json: body.json })
    : target.sign({ method, target: path, subject, rawBody: body.raw });
}
