import { ApiError } from '#shared/errors';
import { type ApiPublicKey, getApiPublicKey, getCurrentApiPublicKey } from '#shared/store/api-keys';

/**
 * The API's public keys as the public endpoints serve them, kept in the container: a kid always names the same key,
 * but a key may be revoked, so a key found by kid is kept for `keptMs` only (one read per kid and interval at most).
 * The current key is read every time, so a rotation shows at once; while the store is unavailable the last one read
 * is served, so that clients can still verify the 503s they get meanwhile (a key that stopped being current still
 * verifies and decrypts).
 */
const keptMs = 5_000;
const byKid = new Map<string, { key: ApiPublicKey; until: number }>();
let lastCurrent: ApiPublicKey | undefined;

const unavailable = (error: unknown) => error instanceof ApiError && error.status === 503;

export async function currentApiPublicKey(): Promise<ApiPublicKey | undefined> {
  try {
    const key = await getCurrentApiPublicKey();
    if (key) {
      lastCurrent = key;
      byKid.set(key.kid, { key, until: Date.now() + keptMs });
    }
    return key;
  } catch (error) {
    if (lastCurrent && unavailable(error)) return lastCurrent;
    throw error;
  }
}

export async function apiPublicKey(kid: string): Promise<ApiPublicKey | undefined> {
  // Kids are 47 characters; a longer one names no key, and might not fit a store key.
  if (kid.length > 128) return undefined;
  const known = byKid.get(kid);
  if (known && Date.now() < known.until) return known.key;
  const key = await getApiPublicKey(kid);
  if (key) byKid.set(kid, { key, until: Date.now() + keptMs });
  else byKid.delete(kid);
  return key;
}
