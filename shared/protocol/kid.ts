import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The key id both SDKs compute: MD5 over the DER SubjectPublicKeyInfo, lowercase hex pairs joined by colons
 * (docs/protocol.md#key-ids). MD5 is the wire format here, not a security choice: the kid only names a key.
 */
export function keyId(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const hex = createHash('md5').update(der).digest('hex');
  return hex.replace(/(..)(?!$)/g, '$1:');
}
