import { ApiRequestError } from '#shared/authenticator/index';
import { h } from './dom.ts';
import { type PasskeyPlace, passkeyPlace } from './passkey-place.ts';
import { fromBase64url } from './webauthn-json.ts';

export {
  type AssertionRequest,
  assertPasskey,
  type CreationOptionsJson,
  createPasskey,
} from './webauthn-json.ts';

/** Whether the authenticator says it verified the user (the UV flag, bit 2 of the flags byte after the RP id hash). */
export function userVerified(assertion: Record<string, unknown>): boolean {
  const data = (assertion.response as { authenticatorData: string }).authenticatorData;
  const flags = fromBase64url(data)[32] ?? 0;
  return (flags & 0x04) !== 0;
}

/** Why a ceremony did not finish, in words: a cancelled prompt is the user's choice, not a failure. */
export function ceremonyProblem(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError')
    return 'The passkey prompt was cancelled or timed out. Nothing was sent.';
  if (name === 'InvalidStateError') return 'This browser already holds a passkey for this device.';
  if (name === 'SecurityError')
    return 'This browser refused passkeys at this address: it must be the service’s own domain name (or localhost on this computer), over https.';
  if (name === 'NotSupportedError')
    return 'This browser has no passkey support (no screen lock or biometric).';
  return `The passkey did not work: ${(error as Error).message ?? String(error)}`;
}

type SignalApi = {
  signalUnknownCredential?: (options: { rpId: string; credentialId: string }) => Promise<void>;
};

/**
 * Tells the browser's passkey manager that the service no longer knows this passkey (the WebAuthn Signal API), so it
 * does not linger in the person's list after an unlink; a browser without the API, or one that refuses, changes
 * nothing, since the unlink itself already happened at the service.
 */
export async function forgetPasskey(
  passkey: { readonly id: string; readonly rpId?: string } | undefined,
): Promise<void> {
  const api = (globalThis as { PublicKeyCredential?: SignalApi }).PublicKeyCredential;
  if (!passkey || typeof api?.signalUnknownCredential !== 'function') return;
  try {
    await api.signalUnknownCredential({ rpId: passkey.rpId ?? location.hostname, credentialId: passkey.id });
  } catch {
    // Best effort: the passkey is useless without the device's record at the service either way.
  }
}

/**
 * Whether the device API refused this device's own key as unknown: unlinked by the directory, an operator or another
 * page. Only AUTH-002 or a 404: a clock that drifted (AUTH-004) must not cost the person their passkey.
 */
export function unlinkedElsewhere(error: unknown): boolean {
  return (
    error instanceof ApiRequestError &&
    ((error.status === 401 && error.errorCode === 'AUTH-002') || error.status === 404)
  );
}

/** Why passkeys cannot work where this page is open (see `passkeyPlace`), once the service named its RP id or before. */
export function passkeyPlaceHere(rpId?: string): PasskeyPlace | undefined {
  return passkeyPlace(
    { href: location.href, secure: window.isSecureContext, webAuthn: 'PublicKeyCredential' in window },
    rpId,
  );
}

/** The place's problem as a notice, with the address to open as a link (its path and fragment kept). */
export function placeNotice(place: PasskeyPlace): HTMLElement {
  return h(
    'div',
    { class: 'notice error', role: 'alert', 'data-passkey-place': '' },
    h('p', {}, place.problem),
    place.openInstead && h('p', {}, 'Open ', h('a', { href: place.openInstead }, place.openInstead)),
  );
}
