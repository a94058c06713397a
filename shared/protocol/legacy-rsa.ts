import { constants, type KeyObject, privateDecrypt, publicEncrypt } from 'node:crypto';

/**
 * The RSA primitives of the pre-JOSE wire: the LaunchKey v1 API and the deprecated `auth` package of v3.
 *
 * Every old client encrypted and decrypted with RSA-OAEP, SHA-1 and MGF1-SHA1 (PyCrypto `PKCS1_OAEP` defaults,
 * Ruby `PKCS1_OAEP_PADDING`, Java `RSA/ECB/OAEPWithSHA1AndMGF1Padding`, phpseclib's default OAEP, .NET
 * `RSACryptoServiceProvider.Encrypt(data, true)`), one block per message. None used PKCS#1 v1.5 encryption, so the
 * private-key PKCS#1 v1.5 decryption that Node 20 disables (CVE-2023-46809) is never needed.
 */

/** OAEP with SHA-1 spends 2 × 20 + 2 bytes of the block on padding. */
const oaepSha1Overhead = 42;

/** Why a legacy value could not be made or read. */
export type LegacyFailureReason = 'base64' | 'decryption' | 'format' | 'timestamp' | 'too_large';

export function modulusBytes(key: KeyObject): number {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (key.asymmetricKeyType !== 'rsa' || bits === undefined) throw new TypeError('expected an RSA key');
  return Math.ceil(bits / 8);
}

/** The largest plaintext one RSA-OAEP (SHA-1) block of this key can carry: 214 bytes for 2048 bits, 470 for 4096. */
export function maxOaepSha1Plaintext(key: KeyObject): number {
  return modulusBytes(key) - oaepSha1Overhead;
}

/** One OAEP SHA-1 block, or undefined when the plaintext does not fit. */
export function encryptOaepSha1Block(plaintext: Uint8Array, publicKey: KeyObject): Buffer | undefined {
  if (plaintext.byteLength > maxOaepSha1Plaintext(publicKey)) return undefined;
  return publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
    plaintext,
  );
}

/** The plaintext of one OAEP SHA-1 block, or undefined when this key did not encrypt it (or it was altered). */
export function decryptOaepSha1Block(ciphertext: Uint8Array, privateKey: KeyObject): Buffer | undefined {
  try {
    if (ciphertext.byteLength !== modulusBytes(privateKey)) return undefined;
    return privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' },
      ciphertext,
    );
  } catch {
    return undefined;
  }
}

const base64Shape = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes standard, padded Base64 as the old clients wrote it. Line breaks are ignored: Python 2's
 * `str.encode('base64')` wraps at 76 columns and the v1 API wrapped `auth` at 64 with CRLF. A space is read as `+`,
 * the character a form decoder turns into a space when a client forgot to percent-encode it; Base64 has no spaces.
 * Anything else outside the alphabet, or a wrong length, is refused: undefined.
 */
export function decodeLegacyBase64(text: unknown): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const compact = text.replace(/ /g, '+').replace(/[\r\n\t]/g, '');
  if (compact.length === 0 || !base64Shape.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

/** Base64 in one line, as Ruby's strict_encode64, Java's `Base64(0)` and PHP's base64_encode write it. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Base64 as Python 2's `str.encode('base64')` wrote it (launchkey.py 1.x): 76-column lines, each ending in LF. */
export function encodeMimeBase64(bytes: Uint8Array): string {
  const flat = encodeBase64(bytes);
  let out = '';
  for (let i = 0; i < flat.length; i += 76) out += `${flat.slice(i, i + 76)}\n`;
  return out;
}
