import { createECDH } from 'node:crypto';

/**
 * The deployment's VAPID key pair (RFC 8292), which signs every Web Push: a P-256 key pair as Web Push uses it, the
 * uncompressed public point (65 bytes) and the private scalar, base64url. Made once and kept through every rotation
 * of the API keys, since browsers bind each subscription to the public half they were given. Kept on its own: only
 * the push worker and what hands out the public half read it.
 */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** A new VAPID key pair on P-256. */
export function generateVapidKeys(): VapidKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // The scalar is 32 bytes, but Node drops its leading zero bytes, which web-push refuses.
  const privateKey = Buffer.alloc(32);
  const scalar = ecdh.getPrivateKey();
  scalar.copy(privateKey, 32 - scalar.length);
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: privateKey.toString('base64url'),
  };
}

/** Reads a stored VAPID key pair; anything without both halves as strings is refused. */
export function parseVapidKeys(text: string): VapidKeys {
  const value = JSON.parse(text) as Partial<VapidKeys>;
  if (typeof value.publicKey !== 'string' || typeof value.privateKey !== 'string')
    throw new Error('The VAPID key document needs "publicKey" and "privateKey"');
  return { publicKey: value.publicKey, privateKey: value.privateKey };
}
