import { generateHashKey } from '#shared/api-keys/hash-key';
import {
  type ApiKeyRingDocument,
  type ApiKeySize,
  generateApiKey,
  withApiKey,
  withCurrentApiKey,
  withoutApiKey,
  withoutLegacyParts,
} from '#shared/api-keys/key-ring';
import type { ApiKeyRingStorage, KeyCustody, KeyPartStorage } from '#shared/api-keys/key-ring-storage';
import { generateVapidKeys } from '#shared/api-keys/vapid-keys';
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
 * Makes sure every part of the deployment's keys exists and serves: the first call makes an API key, the hash key and
 * the VAPID key pair, each in its own place; every call publishes the ring's public keys and its current key to the
 * table. A ring made when one secret held everything hands its hash key and VAPID keys over unchanged, so keyed
 * hashes, sealed values and browsers' subscriptions survive; finishKeySplit drops the ring's copies later. Idempotent:
 * a deployment runs it on every stack update, the local runtime at every start.
 */
export async function ensureKeyCustody(
  custody: KeyCustody,
  bits: ApiKeySize,
): Promise<{ created: boolean; current: string }> {
  const ring = await custody.apiKeys.read();
  await ensurePart(
    custody.hashKey,
    ring?.hashKey === undefined ? undefined : { hashKey: ring.hashKey },
    generateHashKey,
    (a, b) => a.hashKey === b.hashKey,
  );
  await ensurePart(
    custody.vapidKeys,
    ring?.vapid,
    generateVapidKeys,
    (a, b) => a.publicKey === b.publicKey && a.privateKey === b.privateKey,
  );
  if (!ring) {
    const key = await addApiKey(custody.apiKeys, { bits, makeCurrent: true });
    return { created: true, current: key.kid };
  }
  if (hasLegacyParts(ring) && ring.splitAt === undefined)
    await custody.apiKeys.write({ ...ring, splitAt: new Date().toISOString() });
  await publishApiKeyRing(ring);
  return { created: false, current: ring.current };
}

/**
 * Drops the hash key and VAPID keys from a ring that was split at least `graceMs` ago, once their own places hold the
 * same values. Not at the split itself: until the deployment that split it has finished, a rollback runs the older
 * code, which reads them from the ring (and would make a new hash key if it found none).
 */
export async function finishKeySplit(
  custody: KeyCustody,
  options: { now: Date; graceMs: number },
): Promise<{ finished: boolean }> {
  const ring = await custody.apiKeys.read();
  if (!ring || !hasLegacyParts(ring)) return { finished: false };
  if (ring.splitAt === undefined || options.now.getTime() - Date.parse(ring.splitAt) < options.graceMs)
    return { finished: false };
  const [hashKey, vapid] = await Promise.all([custody.hashKey.read(), custody.vapidKeys.read()]);
  const kept =
    (ring.hashKey === undefined || hashKey?.hashKey === ring.hashKey) &&
    (ring.vapid === undefined ||
      (vapid?.publicKey === ring.vapid.publicKey && vapid.privateKey === ring.vapid.privateKey));
  if (!kept)
    throw new Error("The split key parts differ from the key ring's copies: leaving the ring as it is");
  await custody.apiKeys.write(withoutLegacyParts(ring));
  return { finished: true };
}

function hasLegacyParts(ring: ApiKeyRingDocument): boolean {
  return ring.hashKey !== undefined || ring.vapid !== undefined;
}

/**
 * Writes a key part that is missing: the ring's own copy if it has one, a new one otherwise. A part that exists and
 * differs from the ring's copy is an error: one of them is wrong, and only an operator can say which.
 */
async function ensurePart<T>(
  storage: KeyPartStorage<T>,
  fromRing: T | undefined,
  generate: () => T,
  same: (a: T, b: T) => boolean,
): Promise<void> {
  const stored = await storage.read();
  if (stored === undefined) {
    await storage.write(fromRing ?? generate());
    return;
  }
  if (fromRing !== undefined && !same(stored, fromRing))
    throw new Error(
      `The key part in ${storage.description} differs from the key ring's copy: refusing to choose`,
    );
}

/** Days since the current API key was made, from its published half; undefined before there is one. */
export async function currentApiKeyAgeDays(now: Date): Promise<number | undefined> {
  const current = await getCurrentApiPublicKey();
  if (!current) return undefined;
  return Math.max(0, (now.getTime() - Date.parse(current.created)) / 86_400_000);
}
