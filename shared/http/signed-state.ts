import type { Context } from 'aws-lambda';
import type { EntityKey } from '#shared/domain/entity-key';
import type { HeadItem } from '#shared/store/heads';
import type { ApiIdentity } from '#shared/protocol/dialect';
import type { Entity } from '#shared/protocol/entity';
import type { Recipient } from '#shared/protocol/jwe';

/** Who called, once the request JWT has verified. */
export interface Caller {
  /** The entity whose key signed the request. */
  readonly issuer: Entity;
  /** The entity the request acts for; the issuer itself or one it owns. */
  readonly subject: Entity;
  /** The API identity the request addressed; responses are issued under it. */
  readonly identity: ApiIdentity;
  readonly jti: string;
  /** The id of the issuer's key that signed the request. */
  readonly kid: string;
  /** The key the response body is encrypted to; undefined when the issuer has none that can receive encryption. */
  readonly responseKey: Recipient | undefined;
  /** The issuer's keys, as read to verify the request. */
  readonly issuerKeys: readonly EntityKey[];
  /** The issuer's head (directories, services, devices), read with its keys. */
  readonly issuerHead: HeadItem | undefined;
  /** The subject's head: the issuer's own, or the one read to check that the issuer owns the subject. */
  subjectHead?: HeadItem | undefined;
}

/**
 * What the request claims before anything is verified. A refusal is still addressed to it, so that the Java SDK can
 * validate a 401 (docs/protocol.md#refusals).
 */
export interface ClaimedCaller {
  readonly identity: ApiIdentity;
  readonly iss?: string;
  readonly sub?: string;
  readonly jti?: string;
}

/** Per-request state of the signed pipeline. */
export interface SignedState {
  /** Epoch milliseconds at which the request arrived; every check of the request uses this one instant. */
  receivedAt: number;
  claimed?: ClaimedCaller;
  caller?: Caller;
  /**
   * Settles when the request's jti is recorded: rejects with AUTH-006 for a replay, or with the store's failure. Set
   * once the signature verifies; the use case's writes and the answer wait for it.
   */
  firstUse?: Promise<void>;
  body?: unknown;
}

/**
 * The Lambda context of a signed request. The state rides on it because middy hands the handler only event and
 * context; Lambda makes a new context object for every invocation.
 */
export interface SignedContext extends Context {
  signed: SignedState;
}
