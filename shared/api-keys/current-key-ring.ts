import { type ApiKeyRing, openApiKeyRing, parseApiKeyRingDocument } from '#shared/api-keys/key-ring';
import { keyPartSource } from '#shared/api-keys/key-part-source';

/**
 * The API key ring of this container. Loaded at cold start and re-read once it is `maxAgeMs` old, so a rotation
 * reaches the signing key of every container within that time; also re-read when a request names a kid the ring does
 * not hold (a key rotated in after this container started). Forced re-reads are spaced by `refreshIntervalMs`, so a
 * flood of made-up kids costs at most one read per interval.
 */
const source = keyPartSource('API key ring', 'API_KEYS_SECRET_ID', 'API_KEYS_FILE');

const refreshIntervalMs = 5_000;
const maxAgeMs = 5 * 60_000;
let ring: Promise<ApiKeyRing> | undefined;
let loadedAt = Number.NEGATIVE_INFINITY;
let lastForcedRefresh = Number.NEGATIVE_INFINITY;

async function load(forceFetch: boolean): Promise<ApiKeyRing> {
  const readAt = Date.now();
  const text = await source(forceFetch);
  return revocationAware(openApiKeyRing(parseApiKeyRingDocument(text)), readAt);
}

/**
 * A key that is not current may have been revoked since the ring was read: a ring read more than `refreshIntervalMs`
 * ago does not vouch for it, so the caller re-reads (refreshedApiKeyRing) before decrypting with it. A revoked kid
 * is thus refused within `refreshIntervalMs` of its revocation, at the cost of one re-read per interval while
 * bodies still name the old key, which happens only between a rotation and the end of the clients' caches. The
 * current key is vouched for until the ring is `maxAgeMs` old: a key revoked sooner than that after the rotation
 * that retired it may still be honoured, and sign, until then.
 */
function revocationAware(opened: ApiKeyRing, readAt: number): ApiKeyRing {
  return {
    ...opened,
    decryptionKey: (kid) =>
      kid === undefined || kid === opened.current.kid || Date.now() - readAt < refreshIntervalMs
        ? opened.decryptionKey(kid)
        : undefined,
  };
}

export function apiKeyRing(): Promise<ApiKeyRing> {
  if (ring && Date.now() - loadedAt >= maxAgeMs) {
    // An unreachable secret must not fail requests the ring in hand can serve.
    const previous = ring;
    return refreshedApiKeyRing().catch(() => previous);
  }
  if (!ring) {
    loadedAt = Date.now();
    ring = load(false);
    ring.catch(() => {
      ring = undefined;
    });
  }
  return ring;
}

/** Re-reads the ring unless that was done moments ago; returns the ring to use either way. */
export function refreshedApiKeyRing(): Promise<ApiKeyRing> {
  if (ring && Date.now() - lastForcedRefresh < refreshIntervalMs) return ring;
  lastForcedRefresh = Date.now();
  const previous = ring;
  const previousLoadedAt = loadedAt;
  loadedAt = Date.now();
  ring = load(true).catch((error: unknown) => {
    ring = previous;
    loadedAt = previousLoadedAt;
    throw error;
  });
  return ring;
}
