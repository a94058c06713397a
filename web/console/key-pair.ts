/**
 * A key pair made in the browser with WebCrypto: the public half (SPKI PEM) for the service, the private half
 * (PKCS#8 PEM) for the person to download. Nothing here sends anything anywhere.
 */

/** RS256 keys, as the signed API verifies them; 4096 bits, twice the service's smallest. */
const algorithm: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 4096,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

export interface KeyPairPems {
  readonly publicPem: string;
  readonly privatePem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(der)) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export async function generateKeyPair(): Promise<KeyPairPems> {
  // Extractable: the private key must leave WebCrypto once, into the person's download.
  const pair = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const [spki, pkcs8] = await Promise.all([
    crypto.subtle.exportKey('spki', pair.publicKey),
    crypto.subtle.exportKey('pkcs8', pair.privateKey),
  ]);
  return { publicPem: pem('PUBLIC KEY', spki), privatePem: pem('PRIVATE KEY', pkcs8) };
}

/**
 * A link that saves the private key as a file: a Blob behind an object URL, revoked once the link was used or when
 * `discard` is called (the screen left), so the key does not outlive the page's need for it.
 */
export function privateKeyDownload(
  privatePem: string,
  fileName: string,
  text: string,
): { readonly link: HTMLAnchorElement; readonly discard: () => void } {
  let url: string | undefined = URL.createObjectURL(
    new Blob([privatePem], { type: 'application/x-pem-file' }),
  );
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.textContent = text;
  const discard = () => {
    if (url === undefined) return;
    URL.revokeObjectURL(url);
    url = undefined;
    link.removeAttribute('href');
  };
  // The download has started by the time the click's task ends; the URL goes right after it.
  link.addEventListener('click', () => setTimeout(discard, 0));
  return { link, discard };
}
