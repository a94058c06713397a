/**
 * The passkey ceremonies with WebAuthn's JSON shapes, shared by the web authenticator and the console's pages.
 * By hand: `PublicKeyCredential.parse…FromJSON` is missing from the Safari versions targeted.
 */

export const fromBase64url = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
};
export const toBase64url = (buffer: ArrayBuffer | ArrayBufferView): string => {
  const bytes =
    buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

/** Registration options as a server answers them (PublicKeyCredentialCreationOptionsJSON). */
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

/** What an assertion needs: the challenge, the RP id, and the passkeys it may use (none: any discoverable one). */
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
