import type { MiddlewareObj } from '@middy/core';
import { canVerifySignatures, responseEncryptionKey } from '#shared/domain/entity-key';
import { mayIssueRequests } from '#shared/domain/subject';
import { idEchoLength, quote } from '#shared/echo';
import { ApiError, type ErrorCode } from '#shared/errors';
import { type HttpEvent, header, requestBinding } from '#shared/http/event';
import type { ClaimedCaller, SignedContext } from '#shared/http/signed-state';
import { apiIdentities, dialectOfScheme, isApiIdentity } from '#shared/protocol/dialect';
import { parseEntity } from '#shared/protocol/entity';
import { decodeUnverified } from '#shared/protocol/jws';
import { importPublicKey } from '#shared/protocol/pem';
import { ProtocolRejection, type RejectionReason } from '#shared/protocol/rejection';
import { verifyRequestJwt } from '#shared/protocol/request-jwt';
import { listEntityKeysAndHead } from '#shared/store/entity-keys';
import type { HeadItem } from '#shared/store/heads';
import { recordJti } from '#shared/store/jti';

export interface AuthenticateOptions {
  /** Allowed difference between the caller's clock and ours, seconds. The SDKs allow 30. */
  readonly leewaySeconds: number;
  /** Longest accepted exp − iat, seconds. The SDKs send 5. */
  readonly maxLifetimeSeconds: number;
  /** Whether a device that awaits confirmation may sign this operation (its own link state, its unlink). */
  readonly allowAwaitingDevice: boolean;
}

export const authenticateDefaults: AuthenticateOptions = {
  leewaySeconds: 30,
  maxLifetimeSeconds: 60,
  allowAwaitingDevice: false,
};

const refusalCodes: Readonly<Record<RejectionReason, ErrorCode>> = {
  malformed: 'AUTH-001',
  'unknown-key': 'AUTH-002',
  signature: 'AUTH-003',
  claims: 'AUTH-004',
  binding: 'AUTH-005',
  decryption: 'AUTH-001',
  content: 'AUTH-001',
};

/**
 * Step 1 of the pipeline: the Authorization header's JWT must be signed by a live signature-capable key of its issuer,
 * addressed to this API, current, describe exactly this request, and be seen for the first time. That last check
 * ends in `after` or `onError`: the jti is recorded while the use case reads.
 */
export function authenticate(
  options: Partial<AuthenticateOptions> = {},
): MiddlewareObj<HttpEvent, unknown, Error, SignedContext> {
  const { leewaySeconds, maxLifetimeSeconds, allowAwaitingDevice } = { ...authenticateDefaults, ...options };
  if (!(leewaySeconds >= 0 && maxLifetimeSeconds > 0)) {
    throw new Error('authenticate: leewaySeconds must be ≥ 0 and maxLifetimeSeconds > 0');
  }
  return {
    before: async (request) => {
      const state = request.context.signed;
      const nowDate = new Date(state.receivedAt);
      const now = Math.floor(state.receivedAt / 1000);
      const [scheme = '', token = '', ...extra] = (header(request.event, 'authorization') ?? '')
        .trim()
        .split(/\s+/);
      const dialect = dialectOfScheme(scheme);
      state.claimed = { identity: dialect?.identity ?? 'lka' };
      if (!token || extra.length > 0)
        throw refusal('AUTH-001', 'Authorization must be "API-JWT <jwt>" or "IOV-JWT <jwt>"');
      if (!dialect) throw refusal('AUTH-001', `Unknown authorization scheme ${quote(scheme)}`);

      const unverified = readOrRefuse(token);
      const claimed = claimedCaller(unverified.claims, dialect.identity);
      state.claimed = claimed;
      const issuer = parseEntity(claimed.iss);
      if (!issuer) throw refusal('AUTH-001', 'iss must be an entity such as org:<uuid>');

      let keys: Awaited<ReturnType<typeof listEntityKeysAndHead>>['keys'] = [];
      let issuerHead: HeadItem | undefined;
      let verified: Awaited<ReturnType<typeof verifyRequestJwt>>;
      try {
        verified = await verifyRequestJwt(token, {
          binding: requestBinding(request.event),
          audience: apiIdentities,
          now,
          leeway: leewaySeconds,
          maxLifetime: maxLifetimeSeconds,
          resolveKey: async ({ kid }) => {
            ({ keys, head: issuerHead } = await listEntityKeysAndHead(issuer));
            const key = keys.find((candidate) => candidate.kid === kid);
            if (!mayIssueRequests(issuer, issuerHead, allowAwaitingDevice)) {
              throw new ProtocolRejection(
                'unknown-key',
                `${claimed.iss} may not sign requests (unlinked, unknown or awaiting confirmation)`,
              );
            }
            if (!key || !canVerifySignatures(key, nowDate)) {
              throw new ProtocolRejection(
                'unknown-key',
                `${claimed.iss} has no active signature key ${quote(kid, idEchoLength)}`,
              );
            }
            return importPublicKey(key.publicKeyPem);
          },
        });
      } catch (error) {
        if (error instanceof ProtocolRejection)
          throw refusal(refusalCodes[error.reason], error.message, error);
        throw error;
      }

      const { claims } = verified;
      const subject = claims.sub === undefined ? issuer : parseEntity(claims.sub);
      if (!subject) throw refusal('AUTH-004', 'sub must be an entity such as svc:<uuid>');
      // Recorded while the use case makes its first reads; its writes and the answer wait for it (first-use.ts).
      state.firstUse = recordJti(issuer, claims.jti, claims.exp + leewaySeconds, now).then((first) => {
        if (!first) throw refusal('AUTH-006', `jti ${claims.jti} was already used`);
      });
      // Awaited in `after` or `onError`; until then a rejection is not unhandled.
      state.firstUse.catch(() => undefined);
      const kid = unverified.header.kid as string;
      const encryptionKey = responseEncryptionKey(keys, kid, nowDate);
      state.caller = {
        issuer,
        subject,
        identity: claimed.identity,
        jti: claims.jti,
        kid,
        responseKey: encryptionKey && {
          kid: encryptionKey.kid,
          publicKey: importPublicKey(encryptionKey.publicKeyPem),
        },
        issuerKeys: keys,
        issuerHead,
      };
    },
    // A replay is refused whatever its use case answered, and a request whose jti could not be recorded fails.
    after: async (request) => {
      await request.context.signed.firstUse;
    },
    onError: async (request) => {
      try {
        await request.context.signed?.firstUse;
      } catch (error) {
        request.error = error as Error;
      }
    },
  };
}

function readOrRefuse(token: string): ReturnType<typeof decodeUnverified> {
  try {
    return decodeUnverified(token);
  } catch (error) {
    if (error instanceof ProtocolRejection) throw refusal(refusalCodes[error.reason], error.message, error);
    throw error;
  }
}

/**
 * Who the token says it is from, trusting nothing, so that even a refusal can be addressed to the caller, whatever it
 * claimed (docs/protocol.md#refusals). A claim longer than any client sends (a jti is at most 128 characters) is not
 * repeated: it would go back in the response JWT's headers and into the log.
 */
function claimedCaller(
  claims: Record<string, unknown>,
  schemeIdentity: ClaimedCaller['identity'],
): ClaimedCaller {
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  const identity = audiences.find(isApiIdentity) ?? schemeIdentity;
  const { iss, sub, jti } = claims;
  return {
    identity,
    ...(repeatable(iss) ? { iss } : {}),
    ...(repeatable(sub) ? { sub } : {}),
    ...(repeatable(jti) ? { jti } : {}),
  };
}

const repeatable = (claim: unknown): claim is string => typeof claim === 'string' && claim.length <= 128;

function refusal(code: ErrorCode, detail: string, cause?: unknown): ApiError {
  return new ApiError(code, detail, { cause });
}
