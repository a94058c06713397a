import { keyPartSource } from '#shared/api-keys/key-part-source';
import { parseVapidKeys, type VapidKeys } from '#shared/api-keys/vapid-keys';

const source = keyPartSource('VAPID key', 'VAPID_KEYS_SECRET_ID', 'VAPID_KEYS_FILE');
let keys: Promise<VapidKeys> | undefined;

/** The deployment's VAPID key pair, read once per container: browsers' subscriptions are bound to it for good. */
export function currentVapidKeys(): Promise<VapidKeys> {
  if (!keys) {
    keys = source(false).then(parseVapidKeys);
    keys.catch(() => {
      keys = undefined;
    });
  }
  return keys;
}
