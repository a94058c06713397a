import { type AuthRequest, authRequestState, maxNumberMatchFailures } from '#shared/domain/auth-request';
import { organizationUserHash, serviceUserHash, userPushId } from '#shared/domain/user-identity';
import { ApiError, notFound } from '#shared/errors';
import { publishEnded } from '#shared/events/publish-push';
import type { Reply } from '#shared/http/reply';
import { countMetric } from '#shared/metrics';
import { isUuid } from '#shared/protocol/entity';
import { cancelAuthRequest as cancel, getAuthRequest, markExpiryCounted } from '#shared/store/auth-requests';

/** The six keys both SDKs need in an answered request (docs/protocol.md#authorization-response), for polls and webhooks alike. */
export interface AuthorizationResponse {
  readonly auth: string | null;
  readonly auth_jwe: string;
  readonly service_user_hash: string;
  readonly org_user_hash: string;
  readonly user_push_id: string;
  readonly public_key_id: string;
}

export function authorizationResponse(auth: AuthRequest, hashKey: Buffer): AuthorizationResponse {
  if (!auth.answer) throw new Error(`Auth request ${auth.id} has no answer`);
  return {
    auth: auth.answer.auth,
    auth_jwe: auth.answer.authJwe,
    service_user_hash: serviceUserHash(hashKey, auth.serviceId, auth.userId),
    org_user_hash: organizationUserHash(hashKey, auth.organizationId, auth.userId),
    user_push_id: userPushId(hashKey, auth.serviceId, auth.userId),
    public_key_id: auth.requesterKid,
  };
}

/**
 * GET /service/v3/auths/{id} (docs/protocol.md#states): 204 while pending, and for an id the service does not know
 * (another service's request is unknown to it); 200 with the answer; 408 with no body once expired; SVC-007 once
 * cancelled. `hashKey` is read only for an answer; the caller passes it so that this module leaves the hash key
 * to the functions that answer polls.
 */
export async function readAuthRequest(
  serviceId: string,
  authId: string,
  now: Date,
  hashKey: () => Promise<Buffer>,
): Promise<Reply> {
  const auth = await findServiceAuthRequest(serviceId, authId);
  if (!auth) return { status: 204 };
  switch (authRequestState(auth, Math.floor(now.getTime() / 1000))) {
    case 'answered':
      return { status: 200, body: authorizationResponse(auth, await hashKey()) };
    case 'expired':
      await countExpiry(auth.id);
      return { status: 408 };
    case 'cancelled':
      if (auth.numberMatchFailed) throw numberMatchFailed();
      throw new ApiError('SVC-007', 'The authorization request was cancelled');
    default:
      return { status: 204 };
  }
}

/**
 * The request a caller names by id; none for an id that is not a UUID, which no request has, and which could be too
 * large for a store key.
 */
export async function findAuthRequest(authId: string): Promise<AuthRequest | undefined> {
  return isUuid(authId) ? getAuthRequest(authId) : undefined;
}

/**
 * The request a service names by id, if it is that service's own: another service's request is unknown to it, so that
 * no answer (status, code or body) tells the two apart, whatever the request's state.
 */
export async function findServiceAuthRequest(
  serviceId: string,
  authId: string,
): Promise<AuthRequest | undefined> {
  const auth = await findAuthRequest(authId);
  return auth?.serviceId === serviceId ? auth : undefined;
}

/** Counts a request's expiry the first time anyone sees it (a poll, or a new request for its user). */
export async function countExpiry(authId: string): Promise<void> {
  if (await markExpiryCounted(authId)) countMetric('AuthRequestsExpired');
}

/** DELETE /service/v3/auths/{id}: answered is SVC-006, cancelled SVC-007, unknown or expired 404. */
export async function cancelAuthRequest(serviceId: string, authId: string, now: Date): Promise<void> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!isUuid(authId)) throw notFound('There is no pending authorization request with this id');
  if (await cancel(authId, serviceId, nowSeconds)) {
    await publishEnded(authId);
    return;
  }
  const auth = await findServiceAuthRequest(serviceId, authId);
  const state = auth && authRequestState(auth, nowSeconds);
  if (auth?.numberMatchFailed) throw numberMatchFailed();
  if (state === 'answered') throw new ApiError('SVC-006', 'The authorization request was already answered');
  if (state === 'cancelled') throw new ApiError('SVC-007', 'The authorization request was already cancelled');
  throw notFound('There is no pending authorization request with this id');
}

/** A number-matching request that ended after too many wrong codes (docs/protocol.md#number-matching). */
export function numberMatchFailed(): ApiError {
  return new ApiError(
    'SVC-008',
    `The authorization request ended after ${maxNumberMatchFailures} wrong number-matching codes`,
  );
}
