import type { EntityKey } from '#shared/domain/entity-key';
import type { ApiIdentity } from '#shared/protocol/dialect';

export interface DenialReason {
  readonly id: string;
  readonly reason: string;
  readonly fraud: boolean;
}

/** What a device sent back, end-to-end encrypted; the service relays it and never decrypts it. */
export interface AuthAnswer {
  readonly deviceId: string;
  /** JWE to the requesting entity's key (docs/protocol.md#authorization-response). */
  readonly authJwe: string;
  /** The deprecated v3 RSA package, base64 (docs/protocol.md#answer-packages). */
  readonly auth: string | null;
  /** The v1 package for `/v1/poll`, base64, encrypted to the service's key (docs/protocol.md#legacy-v1). */
  readonly authV1: string | null;
  /** ISO 8601 UTC. */
  readonly answeredAt: string;
  /**
   * Set when the device denied in the clear, without the number-matching code, and the service wrote `authJwe`
   * itself: what the device said, so that the same denial sent again is known as a retry.
   */
  readonly clearDenial?: ClearDenial;
  /** The device said, beside its sealed package, that the user denied it as fraud. */
  readonly fraud?: true;
}

/**
 * What the service can see of an answer: the package is sealed to the requester, so an approval and a sealed denial are
 * both `answered`; `denied` is a denial said in the clear, or one the device reported as fraud.
 */
export function answerOutcome(answer: AuthAnswer): 'answered' | 'denied' {
  return answer.clearDenial || answer.fraud ? 'denied' : 'answered';
}

/** A denial a device says in the clear (docs/protocol.md#number-matching): the reason chosen, and whether it is fraud. */
export interface ClearDenial {
  readonly denialReason: string | null;
  readonly fraud: boolean;
}

/**
 * PENDING until answered, cancelled or expired (by time, not by a write). VOID marked a request whose create lost the
 * busy race, before the create wrote its request and its claim together; such items may still be stored.
 */
export type AuthRequestStatus = 'PENDING' | 'ANSWERED' | 'CANCELLED' | 'VOID';

export interface AuthRequest {
  readonly id: string;
  readonly serviceId: string;
  readonly organizationId: string;
  /** The directory of the user asked. */
  readonly directoryId: string;
  readonly userId: string;
  readonly identifier: string;
  /** The user's linked devices when asked: only they may answer. */
  readonly deviceIds: readonly string[];
  /** The entity that signed the create (svc, or its dir or org): answers are encrypted to its key. */
  readonly requester: string;
  readonly requesterKid: string;
  readonly requesterPublicKey: string;
  /** The identity the create addressed, for the events it causes. */
  readonly identity: ApiIdentity;
  readonly status: AuthRequestStatus;
  readonly created: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
  readonly title: string | null;
  readonly context: string | null;
  readonly pushTitle: string | null;
  readonly pushBody: string | null;
  readonly denialReasons: readonly DenialReason[] | null;
  /** The effective policy (service and request merged), in its wire form. */
  readonly policy: Record<string, unknown>;
  readonly serviceName: string;
  readonly serviceIcon: string | null;
  readonly answer: AuthAnswer | undefined;
  /** The code the application shows and the user types, for a request created with `number_matching`. */
  readonly numberMatchCode?: string;
  /**
   * Set when the directory takes factors only proven to it and the policy asks for inherence: only a device with a
   * passkey, whose every answer carries a verified assertion with user verification, may answer with a sealed package.
   */
  readonly passkeyRequired?: true;
  /** Wrong codes devices have sent so far. */
  readonly numberMatchFailures?: number;
  /**
   * Set when the request ended after `maxNumberMatchFailures` wrong codes: with ANSWERED and the service's own FAILED
   * answer (before that answer existed, with CANCELLED).
   */
  readonly numberMatchFailed?: boolean;
}

/**
 * What a device is shown of a pending request, kept with the user's slot so that listing it reads the user alone: the
 * request's own fields, whether it needs the number the application shows (never the number), and the service's key
 * as it was when the request was made, to which the v1 package is encrypted (as `auth_jwe` is to the requester's).
 */
export interface ShownAuthRequest extends Pick<
  AuthRequest,
  | 'id'
  | 'serviceId'
  | 'serviceName'
  | 'serviceIcon'
  | 'title'
  | 'context'
  | 'pushTitle'
  | 'pushBody'
  | 'policy'
  | 'denialReasons'
  | 'created'
  | 'expiresAt'
  | 'requester'
  | 'requesterKid'
  | 'requesterPublicKey'
  | 'deviceIds'
> {
  readonly numberMatch: boolean;
  /** Absent on slots claimed before it was kept: read as false. */
  readonly passkeyRequired?: boolean;
  readonly serviceKey: { readonly kid: string; readonly publicKeyPem: string } | null;
}

/** What the user's devices are shown of `auth`, with the service's key to encrypt the v1 package to. */
export function shownAuthRequest(
  auth: AuthRequest,
  serviceKey: Pick<EntityKey, 'kid' | 'publicKeyPem'> | undefined,
): ShownAuthRequest {
  return {
    id: auth.id,
    serviceId: auth.serviceId,
    serviceName: auth.serviceName,
    serviceIcon: auth.serviceIcon,
    title: auth.title,
    context: auth.context,
    pushTitle: auth.pushTitle,
    pushBody: auth.pushBody,
    policy: auth.policy,
    denialReasons: auth.denialReasons,
    created: auth.created,
    expiresAt: auth.expiresAt,
    requester: auth.requester,
    requesterKid: auth.requesterKid,
    requesterPublicKey: auth.requesterPublicKey,
    deviceIds: auth.deviceIds,
    numberMatch: auth.numberMatchCode !== undefined,
    passkeyRequired: auth.passkeyRequired === true,
    serviceKey: serviceKey ? { kid: serviceKey.kid, publicKeyPem: serviceKey.publicKeyPem } : null,
  };
}

/** Wrong codes a number-matching request takes before it ends (docs/protocol.md#number-matching). */
export const maxNumberMatchFailures = 3;

/** What a request is at a given instant: a pending request past its expiry is expired. */
export function authRequestState(
  auth: AuthRequest,
  nowSeconds: number,
): 'pending' | 'expired' | 'answered' | 'cancelled' | 'void' {
  switch (auth.status) {
    case 'ANSWERED':
      return 'answered';
    case 'CANCELLED':
      return 'cancelled';
    case 'VOID':
      return 'void';
    default:
      return auth.expiresAt > nowSeconds ? 'pending' : 'expired';
  }
}
