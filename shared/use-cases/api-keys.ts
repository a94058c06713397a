import {
  type ApiKeyRingDocument,
  type ApiKeySize,
  generateApiKey,
  withApiKey,
  withCurrentApiKey,
  withHashKey,
  withVapidKeys,
  withoutApiKey,
} from '#shared/api-keys/key-ring';
import type { ApiKeyRingStorage } from '#shared/api-keys/key-ring-storage';
import { keyId } from '#shared/protocol/kid';
import { importPrivateKey, publicKeyPem } from '#shared/protocol/pem';
import {
  type ApiPublicKey,
  deleteApiPublicKey,
  getApiPublicKey,
  getCurrentApiPublicKey,
  listApiPublicKeys,
  putApiPublicKey,
  setCurrentApiPublicKey,
} from '#shared/store/api-keys';

/**
 * Adds a new API key. The order matters to clients in flight: the public half is published first (so a signature by
 * the new key can be verified by kid), then the private half joins the ring (so a body encrypted to it decrypts),
 * and only then, if asked, does it become the key that `/public/v3/public-key` hands out.
 */
export async function addApiKey(
  storage: ApiKeyRingStorage,
  options: { bits: ApiKeySize; makeCurrent: boolean },
): Promise<ApiPublicKey> {
  const generated = generateApiKey(options.bits);
  const published: ApiPublicKey = {
    kid: generated.kid,
    publicKeyPem: generated.publicKey,
    created: generated.created,
  };
  await putApiPublicKey(published);
  const ring = await storage.read();
  await storage.write(withApiKey(ring, generated, options.makeCurrent));
  if (options.makeCurrent || !ring) await setCurrentApiPublicKey(published);
  return published;
}

/** Makes an existing key current again, for example to roll back a rotation. */
export async function makeApiKeyCurrent(storage: ApiKeyRingStorage, kid: string): Promise<ApiPublicKey> {
  const ring = await storage.read();
  if (!ring) throw new Error(`There is no API key ring in ${storage.description}`);
  const next = withCurrentApiKey(ring, kid);
  const published = await getApiPublicKey(kid);
  if (!published) throw new Error(`API key ${kid} is in the ring but not published in the table`);
  await storage.write(next);
  await setCurrentApiPublicKey(published);
  return published;
}

/**
 * Revokes a key that is not current: it leaves the ring first (running functions stop decrypting with it once they
 * re-read the ring), then the table (clients can no longer fetch it). Running it again after a failure between the
 * two finishes the job.
 */
export async function revokeApiKey(storage: ApiKeyRingStorage, kid: string): Promise<{ kid: string }> {
  const ring = await storage.read();
  if (!ring) throw new Error(`There is no API key ring in ${storage.description}`);
  if (kid === ring.current || kid === (await getCurrentApiPublicKey())?.kid)
    throw new Error(`API key ${kid} is the current key and cannot be revoked; rotate to another key first`);
  const inRing = ring.keys.some((key) => key.kid === kid);
  if (!inRing && !(await getApiPublicKey(kid))) throw new Error(`There is no API key ${kid}`);
  if (inRing) await storage.write(withoutApiKey(ring, kid));
  await deleteApiPublicKey(kid);
  return { kid };
}

/**
 * Publishes every public half of the ring and its current key to the table. Idempotent; the local runtime runs it at
 * each start so a table recreated beside an existing ring still serves the right keys.
 */
export async function publishApiKeyRing(ring: ApiKeyRingDocument): Promise<void> {
  const { keys: published } = await listApiPublicKeys();
  const known = new Set(published.map((key) => key.kid));
  let current: ApiPublicKey | undefined;
  for (const stored of ring.keys) {
    const privateKey = importPrivateKey(stored.privateKey);
    const key: ApiPublicKey = {
      kid: keyId(privateKey),
      publicKeyPem: publicKeyPem(privateKey),
      created: stored.created,
    };
    if (!known.has(key.kid)) await putApiPublicKey(key);
    if (key.kid === ring.current) current = key;
  }
  if (!current) throw new Error(`The API key ring names ${ring.current} as current but holds no such key`);
  await setCurrentApiPublicKey(current);
}

/**
 * Makes sure a key ring exists in `storage` and serves: the first call creates one (an API key, the hash key and the
 * VAPID key pair; an older ring gets the last two it lacks), every call publishes the ring's public keys and its
 * current key to the table. Idempotent: a deployment runs it on every stack update, the local runtime at every start.
 */
export async function ensureApiKeyRing(
  storage: ApiKeyRingStorage,
  bits: ApiKeySize,
): Promise<{ created: boolean; current: string }> {
  const ring = await storage.read();
  if (!ring) {
    const key = await addApiKey(storage, { bits, makeCurrent: true });
    return { created: true, current: key.kid };
  }
  if (!ring.hashKey || !ring.vapid) await storage.write(withVapidKeys(withHashKey(ring)));
  await publishApiKeyRing(ring);
  return { created: false, current: ring.current };
}
