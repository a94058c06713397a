import type { KeyObject } from 'node:crypto';
import { decryptLegacyAuthPackage } from '#shared/protocol/legacy-packages';
import { decryptJson } from '#shared/protocol/jwe';

/** `GET /service/v3/auths/{id}` 200 and the authorization-response webhook (docs/protocol.md#authorization-response). */
export interface AuthorizationResponseBody {
  readonly auth: string | null;
  readonly auth_jwe: string | null;
  readonly service_user_hash: string | null;
  readonly org_user_hash: string | null;
  readonly user_push_id: string | null;
  readonly public_key_id: string | null;
}

/** The device's answer as the application reads it (docs/protocol.md#answer-packages), or the legacy package's (docs/protocol.md#answer-packages). */
export interface DeviceAnswerPackage {
  readonly type: string | null;
  readonly reason: string | null;
  readonly denial_reason: string | null;
  readonly auth_request: string;
  readonly device_id: string;
  readonly service_pins: readonly string[];
  /** What PY reports as authorized: AUTHORIZED and APPROVED, or `response` of the legacy package. */
  readonly authorized: boolean;
  readonly auth_policy?: Record<string, unknown>;
  readonly auth_methods?: Record<string, unknown>[];
}

/** Opens the answer as the SDKs do: `auth_jwe` by its kid when present, else the legacy `auth` by public_key_id. */
export async function openAuthorizationResponse(
  body: AuthorizationResponseBody,
  privateKeys: ReadonlyMap<string, KeyObject>,
): Promise<DeviceAnswerPackage> {
  if (body.auth_jwe) {
    const { value } = await decryptJson(body.auth_jwe, (kid) => (kid ? privateKeys.get(kid) : undefined));
    const jwe = value as Omit<DeviceAnswerPackage, 'authorized'>;
    return { ...jwe, authorized: jwe.type === 'AUTHORIZED' && jwe.reason === 'APPROVED' };
  }
  const key = body.public_key_id ? privateKeys.get(body.public_key_id) : undefined;
  if (!body.auth || !key) throw new Error('The response has no package this application can open');
  const legacy = decryptLegacyAuthPackage(body.auth, key) as {
    auth_request: string;
    response: boolean;
    device_id: string;
    service_pins: string[];
  };
  return {
    type: null,
    reason: null,
    denial_reason: null,
    auth_request: legacy.auth_request,
    device_id: legacy.device_id,
    service_pins: legacy.service_pins,
    authorized: legacy.response,
  };
}
