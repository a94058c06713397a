import { currentHashKey } from '#shared/api-keys/current-hash-key';
import {
  type AuthRequest,
  authRequestState,
  type ShownAuthRequest,
  shownAuthRequest,
} from '#shared/domain/auth-request';
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
  /**
   * Present (true) only when the directory takes inherence only proven with a passkey and the policy asks for it: a
   * device without a passkey cannot approve (docs/protocol.md#proven-factors).
   */
  readonly passkey_required?: true;
  /** Present when the device has a passkey: the assertion its answer must carry (docs/protocol.md#passkeys). */
  readonly webauthn?: ReturnType<typeof assertionRequest>;
}

/**
 * The request a device may answer now, if any: its user's pending one, if it was offered to this device. Read from
 * the user's slot alone, which every end of a request frees in the same write; a slot claimed before the slot kept
 * what devices are shown is read as before, from the request and its service's keys.
 */
export async function listPendingForDevice(
  device: Entity,
  head: HeadItem | undefined,
  now: Date,
  passkeyOrigin: string | undefined,
) {
  const user = await getUser(deviceUserKey(head));
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!user?.pending || user.pending.expiresAt <= nowSeconds) return [];
  const shown = user.pending.shown ?? (await shownFromRequest(user.pending.authId, now));
  if (!shown?.deviceIds.includes(device.id)) return [];
  const view: PendingAuthRequestView = {
    auth_request: shown.id,
    service: { id: shown.serviceId, name: shown.serviceName, icon: shown.serviceIcon },
    title: shown.title,
    context: shown.context,
    push_title: shown.pushTitle,
    push_body: shown.pushBody,
    policy: shown.policy,
    denial_reasons: shown.denialReasons,
    created: shown.created,
    expires: isoSeconds(new Date(shown.expiresAt * 1000)),
    requester: { entity: shown.requester, kid: shown.requesterKid, public_key: shown.requesterPublicKey },
    service_key: shown.serviceKey
      ? { kid: shown.serviceKey.kid, public_key: shown.serviceKey.publicKeyPem }
      : null,
    device_ids: shown.deviceIds,
    ...(shown.numberMatch ? { number_match: true } : {}),
    ...(shown.passkeyRequired ? { passkey_required: true } : {}),
  };
  const passkey = devicePasskey(user, device.id);
  if (passkey) {
    const hashKey = await currentHashKey();
    return [{ ...view, webauthn: assertionRequest(hashKey, passkey, shown.id, device.id, passkeyOrigin) }];
  }
  return [view];
}

async function shownFromRequest(authId: string, now: Date): Promise<ShownAuthRequest | undefined> {
  const auth = await getAuthRequest(authId);
  if (!auth || authRequestState(auth, Math.floor(now.getTime() / 1000)) !== 'pending') return undefined;
  const serviceKey = responseEncryptionKey(
    await listEntityKeys({ type: 'svc', id: auth.serviceId }),
    '',
    now,
  );
  return shownAuthRequest(auth, serviceKey);
}
