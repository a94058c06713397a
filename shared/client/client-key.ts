import type { CryptoKey } from 'jose';
import type { KeyManagementAlgorithm } from '#shared/protocol/jwe';
import type { KeyMaterial, SignatureAlgorithm } from '#shared/protocol/jws';
import { encodePem, parseRsaPrivateKeyPem, parseRsaPublicKeyPem } from '#shared/protocol/rsa-pem';

/**
 * The private key an API client signs requests and decrypts responses with. From PEM it is a JWK that serves every
 * algorithm; a browser's device key is a pair of non-extractable CryptoKeys, each bound to one algorithm.
 */
export interface ClientKey {
  /** docs/protocol.md#key-ids */
  readonly kid: string;
  /** The public half, SPKI PEM: what a device registers when it links. */
  readonly publicKeyPem: string;
  /** The key that signs with `alg`; throws when this key cannot. */
  signingKey(alg: SignatureAlgorithm): KeyMaterial;
  /** The key that decrypts a JWE of `alg`; undefined when this key cannot. */
  decryptionKey(alg: KeyManagementAlgorithm): KeyMaterial | undefined;
}

/** A private key in PEM (PKCS#8 or PKCS#1), as the CLIs keep it; throws InvalidKeyError when it is not one. */
export function clientKeyFromPem(pem: string): ClientKey {
  const { publicKey, jwk } = parseRsaPrivateKeyPem(pem);
  return {
    kid: publicKey.kid,
    publicKeyPem: publicKey.pem,
    signingKey: () => jwk,
    decryptionKey: () => jwk,
  };
}

/** A device key as a browser keeps it (IndexedDB stores CryptoKeys as they are): the private halves never leave. */
export interface StoredDeviceKey {
  readonly kid: string;
  readonly publicKeyPem: string;
  /** RSASSA-PKCS1-v1_5 with SHA-512: the RS512 the client signs with. */
  readonly signing: CryptoKey;
  /** RSA-OAEP with SHA-1: the RSA-OAEP the service encrypts its responses to a device with. */
  readonly decryption: CryptoKey;
}

const signingAlgorithm = 'RS512';
const decryptionAlgorithm = 'RSA-OAEP';

/**
 * Makes a device key whose private half cannot be exported. WebCrypto binds a key to one algorithm, so the pair is
 * generated once, its private half imported twice as non-extractable keys (signing, decryption), and the extractable
 * original dropped: it exists only inside this call.
 */
export async function createDeviceKey(modulusLength = 2048): Promise<StoredDeviceKey> {
  const { pkcs8, spki } = await generateRsaKeyPair(modulusLength);
  const [signing, decryption] = await Promise.all([
    crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' }, false, ['sign']),
    crypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSA-OAEP', hash: 'SHA-1' }, false, ['decrypt']),
  ]);
  pkcs8.fill(0);
  const publicKey = parseRsaPublicKeyPem(encodePem('PUBLIC KEY', spki));
  return { kid: publicKey.kid, publicKeyPem: publicKey.pem, signing, decryption };
}

/** The client key of a stored device key: it signs RS512 and decrypts RSA-OAEP, the algorithms a device uses. */
export function openDeviceKey(stored: StoredDeviceKey): ClientKey {
  return {
    kid: stored.kid,
    publicKeyPem: stored.publicKeyPem,
    signingKey(alg) {
      if (alg !== signingAlgorithm)
        throw new Error(`This device key signs ${signingAlgorithm} only, not ${alg}`);
      return stored.signing;
    },
    decryptionKey: (alg) => (alg === decryptionAlgorithm ? stored.decryption : undefined),
  };
}

/** A fresh key pair as PKCS#8 PEM, for a host that keeps its key in a file (the CLI). */
export async function generatePrivateKeyPem(modulusLength = 2048): Promise<string> {
  const { pkcs8 } = await generateRsaKeyPair(modulusLength);
  return encodePem('PRIVATE KEY', pkcs8);
}

async function generateRsaKeyPair(
  modulusLength: number,
): Promise<{ pkcs8: Uint8Array<ArrayBuffer>; spki: Uint8Array<ArrayBuffer> }> {
  const pair = await crypto.subtle.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-512',
    },
    true,
    ['sign', 'verify'],
  );
  const [pkcs8, spki] = await Promise.all([
    crypto.subtle.exportKey('pkcs8', pair.privateKey),
    crypto.subtle.exportKey('spki', pair.publicKey),
  ]);
  return { pkcs8: new Uint8Array(pkcs8), spki: new Uint8Array(spki) };
}
