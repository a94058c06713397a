import { randomInt, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { apiKeyRing } from '#shared/api-keys/current-key-ring';
import {
  type AuthRequest,
  authRequestState,
  type DenialReason,
  shownAuthRequest,
} from '#shared/domain/auth-request';
import { responseEncryptionKey } from '#shared/domain/entity-key';
import { InvalidPolicyError } from '#shared/domain/policy/errors';
import { parseAuthRequestPolicy } from '#shared/domain/policy/auth-request-policy';
import { asksForInherence, effectivePolicy } from '#shared/domain/policy/effective-policy';
import { printEffectivePolicy } from '#shared/domain/policy/effective-policy-wire';
import { blankServicePolicy, parseServicePolicy } from '#shared/domain/policy/service-policy';
import { answeringDevices, type PendingSlot, slotHeld } from '#shared/domain/user';
import { ApiError, forbidden, invalidArgument, notFound, serviceUnavailable } from '#shared/errors';
import type { Caller } from '#shared/http/signed-state';
import { formatEntity, sameEntity } from '#shared/protocol/entity';
import { publicKeyPem } from '#shared/protocol/pem';
import { getAuthRequest, newAuthRequestWrite } from '#shared/store/auth-requests';
import { listEntityKeys } from '#shared/store/entity-keys';
import { servicePolicyOf } from '#shared/store/service-heads';
import { claimPendingSlotWrite, getUser } from '#shared/store/users';
import { writeTogether } from '#shared/store/write-together';
import { isoSeconds } from '#shared/time';
import { publishPrompt } from '#shared/events/publish-push';
import { countExpiry } from '#shared/use-cases/auth-request-outcomes';
import { newRequestCount, readRequestCounts, refuseLockedUser } from '#shared/use-cases/push-fatigue';
import { requireServiceUser, subjectService } from '#shared/use-cases/users';

export interface NewAuthRequest {
  /** Null names nobody: 404, like an unknown user. */
  readonly username: string | null;
  readonly context?: string | null;
  readonly title?: string | null;
  readonly ttl?: number | null;
  readonly pushTitle?: string | null;
  readonly pushBody?: string | null;
  readonly denialReasons?: readonly DenialReason[] | null;
  readonly policy?: unknown;
  /** Extension: ask the user to type a code the application shows (docs/protocol.md#number-matching). */
  readonly numberMatching?: boolean | null;
}

export interface CreatedAuthRequest {
  readonly auth_request: string;
  readonly push_package: string;
  readonly device_ids: readonly string[];
  /** Only for a request created with `number_matching`, so the SDKs' shape is unchanged. */
  readonly number_match_code?: string;
}

const defaultTtlSeconds = 300;
/** How often a create retries the slot after finding its holder answered, cancelled or expired. */
const slotAttempts = 3;

/**
 * Asks a user (docs/protocol.md#creating-a-request). Features of Directory Services are refused for Organization Services; the user must
 * exist and have a linked device; the request's policy is merged into the service's, the stricter value winning; and
 * the user's one pending slot is claimed with the conditional protocol of `claimPendingSlotWrite`, so of concurrent
 * requests for one user exactly one wins and the rest get SVC-005 naming it.
 */
export async function createAuthRequest(
  caller: Caller,
  input: NewAuthRequest,
  now: Date,
): Promise<CreatedAuthRequest> {
  const service = subjectService(caller);
  if (!service.active) throw forbidden(`Service ${service.id} is inactive`);
  if (service.owner.type === 'org') refuseDirectoryServiceFeatures(input);
  if (!caller.responseKey) {
    throw new ApiError(
      'AUTH-007',
      `${formatEntity(caller.issuer)} has no key of key_type 0 or 1 to encrypt answers to`,
    );
  }
  const requestPolicy =
    input.policy == null ? undefined : parsePolicy(() => parseAuthRequestPolicy(input.policy));
  const servicePolicy = caller.subjectHead && servicePolicyOf(caller.subjectHead);
  const effective = effectivePolicy(
    servicePolicy ? parsePolicy(() => parseServicePolicy(servicePolicy)) : blankServicePolicy,
    requestPolicy,
  );

  const [{ user, directory, guards }, serviceKeys] = await Promise.all([
    requireServiceUser(service, input.username, await currentHashKey(), true),
    // A service's own request has its keys read already; the keys of a service its owner asks for, alongside.
    sameEntity(caller.issuer, caller.subject) ? caller.issuerKeys : listEntityKeys(caller.subject),
  ]);
  if (!directory.active) throw forbidden(`Directory ${directory.id} is inactive`);
  const denialReasons = input.denialReasons?.length ? input.denialReasons : null;
  if (denialReasons && directory.denial_context_inquiry_enabled !== true) {
    throw invalidArgument("denial_reasons: Denial Context Inquiry is disabled for the Directory's Services");
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  // A device still cooling off after an unlink (docs/protocol.md#device-confirmation) is not offered the request.
  const devices = answeringDevices(user, nowSeconds);
  if (devices.length === 0) throw notFound('The user has no linked device');
  // Read with the user, in the same batch (requireServiceUser's last argument).
  if (!guards) throw new Error('The create read its user without the request guards');
  const { settings, lock } = guards;

  const auth: AuthRequest = {
    id: randomUUID(),
    serviceId: service.id,
    organizationId: service.organizationId,
    directoryId: user.directoryId,
    userId: user.userId,
    identifier: user.identifier,
    deviceIds: devices.map((device) => device.id),
    requester: formatEntity(caller.issuer),
    requesterKid: caller.responseKey.kid,
    requesterPublicKey: publicKeyPem(caller.responseKey.publicKey),
    identity: caller.identity,
    status: 'PENDING',
    created: isoSeconds(now),
    expiresAt: nowSeconds + (input.ttl ?? defaultTtlSeconds),
    title: input.title ?? null,
    context: input.context ?? null,
    pushTitle: input.pushTitle ?? null,
    pushBody: input.pushBody ?? null,
    denialReasons,
    policy: printEffectivePolicy(effective),
    serviceName: service.name,
    serviceIcon: service.icon,
    answer: undefined,
    ...(input.numberMatching ? { numberMatchCode: numberMatchCode() } : {}),
    ...(settings.provenFactors && asksForInherence(effective.demand) ? { passkeyRequired: true } : {}),
  };

  const key = { directoryId: user.directoryId, identifier: user.identifier };
  refuseLockedUser(lock, nowSeconds);
  const slot: PendingSlot = {
    authId: auth.id,
    expiresAt: auth.expiresAt,
    serviceId: service.id,
    shown: shownAuthRequest(auth, responseEncryptionKey(serviceKeys, '', now)),
  };
  // Fast paths: a busy user, then one whose rate limit is used up, is refused before anything is written.
  let stale = user.pending && slotHeld(user, nowSeconds) ? await staleHolder(user.pending.authId) : undefined;
  let count = newRequestCount(key, settings, guards.counts, nowSeconds);
  for (let attempt = 0; attempt < slotAttempts; attempt++) {
    // The count, the request and the claim of the user's slot, all or none: only a request that holds the slot
    // exists, and only a request that exists is counted.
    const failed = await writeTogether([
      count,
      newAuthRequestWrite(auth),
      claimPendingSlotWrite(key, slot, nowSeconds, stale),
    ]);
    if (failed.length === 0) {
      // The push never fails the create.
      await publishPrompt(auth.id, auth.expiresAt - nowSeconds);
      return {
        auth_request: auth.id,
        push_package: await pushPackage(auth, caller),
        device_ids: auth.deviceIds,
        ...(auth.numberMatchCode === undefined ? {} : { number_match_code: auth.numberMatchCode }),
      };
    }
    if (failed.includes(1)) throw new Error(`A new authorization request's id ${auth.id} was taken`);
    if (failed.includes(2)) {
      // Another request holds the slot: 409 naming it while it is pending, else take it over.
      const holderId = (await getUser(key))?.pending?.authId;
      stale = holderId === undefined ? undefined : await staleHolder(holderId);
    }
    // The limit was reached meanwhile (USR-001 from here), or another create moved the counter on to a new window.
    if (failed.includes(0)) count = newRequestCount(key, settings, await readRequestCounts(key), nowSeconds);
  }
  throw serviceUnavailable('The user is being asked by many requests at once; retry');

  /** The holder's id when it no longer holds the slot in earnest (answered, cancelled, expired); SVC-005 if it does. */
  async function staleHolder(holderId: string): Promise<string> {
    const holder = await getAuthRequest(holderId);
    const holderState = holder && authRequestState(holder, nowSeconds);
    if (holder && holderState === 'pending') throw busy(holder, service.id, nowSeconds);
    if (holder && holderState === 'expired') await countExpiry(holder.id);
    return holderId;
  }
}

/**
 * Three digits from the CSPRNG: with `maxNumberMatchFailures` tries, a device guessing blind gets in 3 times in 1 000,
 * where two digits would let it in 3 times in 100.
 */
function numberMatchCode(): string {
  return String(randomInt(0, 1000)).padStart(3, '0');
}

function refuseDirectoryServiceFeatures(input: NewAuthRequest): void {
  const fields: [string, unknown][] = [
    ['title', input.title],
    ['push_title', input.pushTitle],
    ['push_body', input.pushBody],
    ['denial_reasons', input.denialReasons?.length ? input.denialReasons : null],
  ];
  const used = fields.find(([, value]) => value != null);
  if (used)
    throw invalidArgument(`${used[0]}: only Directory Services may send it, this is an Organization Service`);
}

function parsePolicy<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof InvalidPolicyError) throw new ApiError('SVC-002', error.reason, { cause: error });
    throw error;
  }
}

function busy(holder: AuthRequest, serviceId: string, nowSeconds: number): ApiError {
  const seconds = Math.max(0, holder.expiresAt - nowSeconds);
  return new ApiError(
    'SVC-005',
    `An authorization request is already in progress for this user; it expires in ${seconds} seconds`,
    {
      data: {
        auth_request: holder.id,
        from_same_service: holder.serviceId === serviceId,
        expires: isoSeconds(new Date(holder.expiresAt * 1000)),
      },
    },
  );
}

/**
 * The push package an application's own app hands to the authenticator (docs/protocol.md#creating-a-request): a JWS by the API's key,
 * so the authenticator can check it is genuine before it fetches the request it names.
 */
async function pushPackage(auth: AuthRequest, caller: Caller): Promise<string> {
  const ring = await apiKeyRing();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: caller.identity,
    aud: 'dev',
    jti: randomUUID(),
    iat: now,
    exp: auth.expiresAt,
    auth_request: auth.id,
    service_id: auth.serviceId,
    device_ids: auth.deviceIds,
  })
    .setProtectedHeader({ alg: 'RS512', kid: ring.current.kid, typ: 'JWT' })
    .sign(ring.current.privateKey);
}
