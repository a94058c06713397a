import { ApiRequestError } from '#shared/authenticator/index';
import { h } from './dom.ts';
import { type PasskeyPlace, passkeyPlace } from './passkey-place.ts';

/** WebAuthn's JSON shapes by hand: `PublicKeyCredential.parse…FromJSON` is missing from the Safari versions targeted. */

const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
};
const toBase64url = (buffer: ArrayBuffer | ArrayBufferView): string => {
  const bytes =
    buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

/** What POST /device/v3/passkey/options answers (PublicKeyCredentialCreationOptionsJSON). */
export interface CreationOptionsJson {
  readonly challenge: string;
  readonly rp: { readonly id?: string; readonly name: string };
  readonly user: { readonly id: string; readonly name: string; readonly displayName: string };
  readonly pubKeyCredParams: { readonly type: 'public-key'; readonly alg: number }[];
  readonly timeout?: number;
  readonly excludeCredentials?: { readonly id: string; readonly type: 'public-key' }[];
  readonly authenticatorSelection?: AuthenticatorSelectionCriteria;
  readonly attestation?: AttestationConveyancePreference;
}

/** What a request's `webauthn` names: the challenge bound to it and this device, and the passkey to use. */
export interface AssertionRequest {
  readonly challenge: string;
  readonly rp_id: string;
  readonly allow_credentials: readonly string[];
}

/**
 * The passkey ceremony for registration. Call it first thing in a click handler: Safari refuses a ceremony that does
 * not follow the tap directly, so the options are fetched before the button shows.
 */
export async function createPasskey(options: CreationOptionsJson): Promise<Record<string, unknown>> {
  const credential = (await navigator.credentials.create({
    publicKey: {
      ...options,
      challenge: fromBase64url(options.challenge),
      user: { ...options.user, id: fromBase64url(options.user.id) },
      excludeCredentials: (options.excludeCredentials ?? []).map((each) => ({
        type: 'public-key',
        id: fromBase64url(each.id),
      })),
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new DOMException('No passkey was made', 'NotAllowedError');
  const response = credential.response as AuthenticatorAttestationResponse;
  return credentialJson(credential, {
    attestationObject: toBase64url(response.attestationObject),
    transports: response.getTransports?.() ?? [],
  });
}

/** The passkey ceremony for an answer, with user verification required; the same rule about the tap applies. */
export async function assertPasskey(request: AssertionRequest): Promise<Record<string, unknown>> {
  const credential = (await navigator.credentials.get({
    publicKey: {
      challenge: fromBase64url(request.challenge),
      rpId: request.rp_id,
      allowCredentials: request.allow_credentials.map((id) => ({
        type: 'public-key',
        id: fromBase64url(id),
      })),
      userVerification: 'required',
      timeout: 120_000,
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new DOMException('No passkey answered', 'NotAllowedError');
  const response = credential.response as AuthenticatorAssertionResponse;
  return credentialJson(credential, {
    authenticatorData: toBase64url(response.authenticatorData),
    signature: toBase64url(response.signature),
    ...(response.userHandle ? { userHandle: toBase64url(response.userHandle) } : {}),
  });
}

/** A credential as WebAuthn's JSON has it (`PublicKeyCredential.toJSON()`), with its ceremony's own response fields. */
function credentialJson(
  credential: PublicKeyCredential,
  response: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: { clientDataJSON: toBase64url(credential.response.clientDataJSON), ...response },
  };
}

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
