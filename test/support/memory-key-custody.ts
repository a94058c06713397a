import type { KeyCustody, KeyPartStorage } from '#shared/api-keys/key-ring-storage';
import type { ApiPublicKey } from '#shared/store/api-keys';

/** A key part kept in memory, as a secret would keep it: a JSON copy, so callers cannot change it behind its back. */
export function memoryPart<T>(description: string, initial?: T): KeyPartStorage<T> & { writes: number } {
  let stored = initial === undefined ? undefined : JSON.stringify(initial);
  const part = {
    description,
    writes: 0,
    read: async () => (stored === undefined ? undefined : (JSON.parse(stored) as T)),
    write: async (value: T) => {
      stored = JSON.stringify(value);
      part.writes += 1;
    },
  };
  return part;
}

export type MemoryKeyCustody = {
  readonly [P in keyof KeyCustody]: KeyCustody[P] & { writes: number };
};

export function memoryKeyCustody(initial: {
  apiKeys?: unknown;
  hashKey?: unknown;
  vapidKeys?: unknown;
}): MemoryKeyCustody {
  return {
    apiKeys: memoryPart('ring', initial.apiKeys) as MemoryKeyCustody['apiKeys'],
    hashKey: memoryPart('hash key', initial.hashKey) as MemoryKeyCustody['hashKey'],
    vapidKeys: memoryPart('VAPID keys', initial.vapidKeys) as MemoryKeyCustody['vapidKeys'],
  };
}

/** Stands in for shared/store/api-keys (vi.mock): the table's published public keys, in memory. */
export function memoryApiKeyStore() {
  const keys = new Map<string, ApiPublicKey>();
  let current: string | undefined;
  return {
    keys,
    putApiPublicKey: async (key: ApiPublicKey) => {
      keys.set(key.kid, key);
    },
    setCurrentApiPublicKey: async (key: ApiPublicKey) => {
      current = key.kid;
    },
    deleteApiPublicKey: async (kid: string) => {
      keys.delete(kid);
    },
    getApiPublicKey: async (kid: string) => keys.get(kid),
    getCurrentApiPublicKey: async () => (current === undefined ? undefined : keys.get(current)),
    listApiPublicKeys: async () => ({ current, keys: [...keys.values()] }),
  };
}
