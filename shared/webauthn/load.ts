type Library = typeof import('#shared/webauthn/library');

let loading: Promise<Library> | undefined;

/**
 * @simplewebauthn/server, loaded on first use. It carries about 400 KB of X.509 and ASN.1 for attestation formats,
 * most of a function's budget, which every answer would pay at each cold start though most devices have no passkey.
 * In AWS it is a file of its own beside the function's bundle (`WEBAUTHN_MODULE`); locally, the module itself.
 */
export function webAuthnLibrary(): Promise<Library> {
  loading ??= import(process.env.WEBAUTHN_MODULE ?? '#shared/webauthn/library') as Promise<Library>;
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
