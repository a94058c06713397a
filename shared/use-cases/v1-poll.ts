import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { apiKeyRing } from '#shared/api-keys/current-key-ring';
import { authRequestState } from '#shared/domain/auth-request';
import { canVerifySignatures } from '#shared/domain/entity-key';
import { organizationUserHash, serviceUserHash } from '#shared/domain/user-identity';
import { notFound } from '#shared/errors';
import {
  LegacyCredentialError,
  openV1SecretKey,
  verifyV1Signature,
} from '#shared/protocol/legacy-credentials';
import { v1Error, v1MessageCodes, v1Messages } from '#shared/protocol/legacy-packages';
import { importPublicKey } from '#shared/protocol/pem';
import { listEntityKeysAndHead } from '#shared/store/entity-keys';
import { getV1ServiceId, setV1Credentials, v1CredentialsOf } from '#shared/store/v1-credentials';
import { findServiceAuthRequest } from '#shared/use-cases/auth-request-outcomes';

/** The old API refused a stamp more than two minutes off (docs.launchkey.com, API glossary). */
const stampToleranceMs = 120_000;

const digest = (secret: string) => createHash('sha256').update(secret).digest();

/** Issues a service's v1 app key and secret for `/v1/poll` (admin CLI); the secret is shown once, never stored. */
export async function issueV1Credentials(serviceId: string): Promise<{ app_key: string; secret: string }> {
  const appKey = String(randomInt(1_000_000_000, 10_000_000_000));
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const secret = Array.from({ length: 32 }, () => alphabet[randomInt(alphabet.length)]).join('');
  if (!(await setV1Credentials(serviceId, { appKey, secretDigest: digest(secret).toString('hex') }))) {
    throw notFound(`There is no service ${serviceId}`);
  }
  return { app_key: appKey, secret };
}

export interface V1PollQuery {
  readonly auth_request?: string;
  readonly app_key?: string;
  readonly secret_key?: string;
  readonly signature?: string;
}

export interface V1Reply {
  readonly status: number;
  readonly body: unknown;
}

const refused = (status: number, message: string, code: number): V1Reply => ({
  status,
  body: v1Error(status, message, code),
});

/**
 * GET /v1/poll (docs/protocol.md#legacy-v1): the service proves itself with its app key, its secret and a timestamp
 * encrypted to the API's key, and its RSA signature over those bytes; then gets 400/70403 while the request is
 * pending and the v1 package once it is answered. Every failure is a JSON error of the same envelope.
 */
export async function pollV1(query: V1PollQuery, now: Date): Promise<V1Reply> {
  const { auth_request: authId, app_key: appKey, secret_key: secretKey, signature } = query;
  if (!authId || !appKey || !secretKey || !signature) {
    return refused(
      400,
      'auth_request, app_key, secret_key and signature are required',
      v1MessageCodes.pollInvalidRequest as number,
    );
  }
  const denied = refused(401, 'Invalid credentials', v1MessageCodes.pollInvalidRequest as number);
  // App keys are digits (issueV1Credentials); anything else is no app key, and might not fit a store key.
  if (!/^\d{1,20}$/.test(appKey)) return denied;
  const serviceId = await getV1ServiceId(appKey);
  if (!serviceId) return denied;
  const { keys, head } = await listEntityKeysAndHead({ type: 'svc', id: serviceId });
  const credentials = v1CredentialsOf(head);
  if (!credentials || credentials.appKey !== appKey) return denied;

  const ring = await apiKeyRing();
  let opened: ReturnType<typeof openV1SecretKey>;
  try {
    opened = openV1SecretKey(secretKey, ring.privateKeys);
  } catch (error) {
    if (error instanceof LegacyCredentialError) return denied;
    throw error;
  }
  const given = digest(opened.secret);
  const expected = Buffer.from(credentials.secretDigest, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return denied;
  if (Math.abs(now.getTime() - opened.stamped.getTime()) > stampToleranceMs) {
    return refused(
      401,
      'The secret_key timestamp is not current',
      v1MessageCodes.pollInvalidRequest as number,
    );
  }
  const signers = keys
    .filter((key) => canVerifySignatures(key, now))
    .map((key) => importPublicKey(key.publicKeyPem));
  if (!verifyV1Signature(secretKey, signature, signers)) return denied;

  const auth = await findServiceAuthRequest(serviceId, authId);
  const known = auth && authRequestState(auth, Math.floor(now.getTime() / 1000));
  // v1 has no failed answer: a request ended by wrong number-matching codes reads as one that ended unanswered.
  const state = known === 'answered' && auth?.numberMatchFailed ? 'cancelled' : known;
  switch (state) {
    case 'pending':
      return refused(400, v1Messages.pollPending as string, v1MessageCodes.pollPending as number);
    case 'expired':
    case 'cancelled':
      return refused(400, 'The authorization request has expired', v1MessageCodes.pollExpired as number);
    case 'answered': {
      if (!auth?.answer?.authV1) {
        return refused(
          400,
          'The device sent no v1 package for this request',
          v1MessageCodes.pollInvalidRequest as number,
        );
      }
      const hashKey = await currentHashKey();
      return {
        status: 200,
        body: {
          auth: auth.answer.authV1,
          user_hash: serviceUserHash(hashKey, auth.serviceId, auth.userId),
          ...(head?.directoryId === undefined
            ? { organization_user: organizationUserHash(hashKey, auth.organizationId, auth.userId) }
            : {}),
        },
      };
    }
    default:
      return refused(
        404,
        v1Messages.pollNoPendingRequest as string,
        v1MessageCodes.pollNoPendingRequest as number,
      );
  }
}
