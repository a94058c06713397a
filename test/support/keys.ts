import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { keyId } from '#shared/protocol/kid';

export interface TestKeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly privatePem: string;
  readonly publicPem: string;
  readonly kid: string;
}

/** A fresh RSA key pair with its PEM forms and kid. */
export function rsaKeyPair(bits = 2048): TestKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return {
    privateKey,
    publicKey,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: keyId(publicKey),
  };
}
