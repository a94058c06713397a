import { openHashKey, parseHashKeyDocument } from '#shared/api-keys/hash-key';
import { keyPartSource } from '#shared/api-keys/key-part-source';

const source = keyPartSource('hash key', 'HASH_KEY_SECRET_ID', 'HASH_KEY_FILE');
let key: Promise<Buffer> | undefined;

/**
 * The deployment's hash key, read once per container: it never changes, since every keyed hash and sealed value in
 * the table depends on it. A failed read is retried by the next caller.
 */
export function currentHashKey(): Promise<Buffer> {
  if (!key) {
    key = source(false).then((text) => openHashKey(parseHashKeyDocument(text)));
    key.catch(() => {
      key = undefined;
    });
  }
  return key;
}
