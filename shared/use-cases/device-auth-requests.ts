import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { type AuthRequest, authRequestState } from '#shared/domain/auth-request';
import { responseEncryptionKey } from '#shared/domain/entity-key';
import type { Entity } from '#shared/protocol/entity';
import { getAuthRequest } from '#shared/store/auth-requests';
import { listEntityKeys } from '#shared/store/entity-keys';
import type { HeadItem } from '#shared/store/heads';
import { getUser } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { assertionRequest, devicePasskey } from '#shared/use-cases/passkeys';

/** What a device is shown of a request it may answer. */
export interface PendingAuthRequestView {
  readonly auth_request: string;
  readonly service: { readonly id: string; readonly name: string; readonly icon: string | null };
  readonly title: string | null;
  readonly context: string | null;
  readonly push_title: string | null;
  readonly push_body: string | null;
  /** The effective policy: the service's and the request's merged. */
  readonly policy: Record<string, unknown>;
  readonly denial_reasons: AuthRequest['denialReasons'];
  readonly created: string;
  readonly expires: string;
  /** The entity that asked, and its key: `auth_jwe` and `auth` are encrypted to it. */
  readonly requester: { readonly entity: string; readonly kid: string; readonly public_key: string };
  /** The service's key, to which the v1 package is encrypted; null when the service has none. */
  readonly service_key: { readonly kid: string; readonly public_key: string } | null;
  readonly device_ids: readonly string[];
  /** Present (true) only when the answer needs the code the application shows; the code itself is never listed. */
  readonly number_match?: true;
  /** Present when the device has a passkey: the assertion its answer must carry (docs/protocol.md#passkeys). */
  readonly webauthn?: ReturnType<typeof assertionRequest>;
}

/** The request a device may answer now, if any: its user's pending one, if it was offered to this device. */
export async function listPendingForDevice(
  device: Entity,
  head: HeadItem | undefined,
  now: Date,
  baseUrl: string,
) {
  const user = await getUser(deviceUserKey(head));
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!user?.pending || user.pending.expiresAt <= nowSeconds) return [];
  const auth = await getAuthRequest(user.pending.authId);
  if (!auth || authRequestState(auth, nowSeconds) !== 'pending' || !auth.deviceIds.includes(device.id))
    return [];
  const serviceKey = responseEncryptionKey(
    await listEntityKeys({ type: 'svc', id: auth.serviceId }),
    '',
    now,
  );
  const view: PendingAuthRequestView = {
    auth_request: auth.id,
    service: { id: auth.serviceId, name: auth.serviceName, icon: auth.serviceIcon },
    title: auth.title,
    context: auth.context,
    push_title: auth.pushTitle,
    push_body: auth.pushBody,
    policy: auth.policy,
    denial_reasons: auth.denialReasons,
    created: auth.created,
    expires: isoSeconds(new Date(auth.expiresAt * 1000)),
    requester: { entity: auth.requester, kid: auth.requesterKid, public_key: auth.requesterPublicKey },
    service_key: serviceKey ? { kid: serviceKey.kid, public_key: serviceKey.publicKeyPem } : null,
    device_ids: auth.deviceIds,
    ...(auth.numberMatchCode === undefined ? {} : { number_match: true }),
  };
  const passkey = devicePasskey(user, device.id);
  if (passkey) {
    const hashKey = await currentHashKey();
    return [{ ...view, webauthn: assertionRequest(hashKey, passkey, auth.id, device.id, baseUrl) }];
  }
  return [view];
}
