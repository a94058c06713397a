import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { checkPublicExponent, InvalidKeyError, minimumModulusBits } from '#shared/protocol/key-rules';

// The server's keys stay node KeyObjects; the error and the bound are shared with the browser-safe reader.
export { InvalidKeyError, minimumModulusBits } from '#shared/protocol/key-rules';

const publicKeyCache = new Map<string, KeyObject>();
const cacheLimit = 1_000;

/**
 * Imports an RSA public key given as SPKI (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`) PEM. node:crypto
 * reads both; jose's importSPKI refuses PKCS#1. Results are cached by PEM text because the same keys arrive on every
 * request of an entity.
 */
export function importPublicKey(pem: string): KeyObject {
  const cached = publicKeyCache.get(pem);
  if (cached) return cached;
  if (typeof pem !== 'string' || !/-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem)) {
    throw new InvalidKeyError('expected a PEM public key (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY)');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new InvalidKeyError('the PEM text does not parse as a public key', { cause });
  }
  assertRsa(key);
  if (publicKeyCache.size >= cacheLimit) publicKeyCache.clear();
  publicKeyCache.set(pem, key);
  return key;
}

/** Imports an RSA private key given as PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`) PEM. */
export function importPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new InvalidKeyError('the PEM text does not parse as an unencrypted private key', { cause });
  }
  assertRsa(key);
  return key;
}

export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

function assertRsa(key: KeyObject): void {
  if (key.asymmetricKeyType !== 'rsa') {
    throw new InvalidKeyError(`expected an RSA key, got ${key.asymmetricKeyType ?? 'an unknown key type'}`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < minimumModulusBits) {
    throw new InvalidKeyError(`RSA keys must have at least ${minimumModulusBits} bits, this one has ${bits}`);
  }
  checkPublicExponent(key.asymmetricKeyDetails?.publicExponent ?? 0n);
}
