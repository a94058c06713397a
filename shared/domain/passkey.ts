import { createHmac } from 'node:crypto';

/**
 * A device's passkey (docs/protocol.md#passkeys): the WebAuthn credential its authenticator registered, which then
 * signs a challenge bound to each request the device answers.
 */
export interface StoredPasskey {
  /** The credential id, base64url. */
  readonly id: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The authenticator's signature counter at the last accepted assertion (0 for authenticators that keep none). */
  readonly counter: number;
  readonly transports?: readonly string[];
  /** ISO 8601 UTC. */
  readonly registered: string;
}

/** The registration challenge a device was given: used once, before it expires. */
export interface PasskeyChallenge {
  /** base64url. */
  readonly challenge: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** How long a device has to complete a registration: WebAuthn's own default timeout is a few minutes at most. */
export const passkeyChallengeSeconds = 300;

/**
 * The WebAuthn relying party a deployment is: the host and origin passkeys are bound to (`localhost` locally), which
 * the deployment configures (see `passkeyOrigin` in shared/http/event.ts); one that configures none offers no passkeys.
 */
export function relyingParty(origin: string | undefined): { readonly rpId: string; readonly origin: string } {
  if (origin === undefined)
    throw new Error('Passkeys need PUBLIC_BASE_URL or WEBAUTHN_ORIGINS, and neither is set');
  const url = new URL(origin);
  return { rpId: url.hostname, origin: url.origin };
}

/**
 * The challenge a device's passkey signs to answer a request: keyed by the deployment's hash key and bound to the
 * request and the device, so it needs no storage and an assertion for one request or device fits no other.
 */
export function assertionChallenge(hashKey: Buffer, authRequestId: string, deviceId: string): string {
  return createHmac('sha256', hashKey).update(`webauthn|${authRequestId}|${deviceId}`).digest('base64url');
}

/**
 * Whether a new signature counter may follow the stored one: it must grow, unless the authenticator keeps no counter
 * (both 0, as passkeys synced between devices do). A counter that does not grow is a sign of a cloned authenticator.
 */
export function counterAdvances(stored: number, next: number): boolean {
  return next > stored || (stored === 0 && next === 0);
}
