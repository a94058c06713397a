import { readFile } from 'node:fs/promises';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { type ApiKeyRing, openApiKeyRing, parseApiKeyRingDocument } from '#shared/api-keys/key-ring';

/**
 * The API key ring of this container. Loaded once per cold start; re-read when a request names a kid the ring does not
 * hold (a key rotated in after this container started). Forced re-reads are spaced by `refreshIntervalMs`, so a flood
 * of made-up kids costs at most one read per interval.
 */
const secretId = process.env.API_KEYS_SECRET_ID;
const file = process.env.API_KEYS_FILE;
if (!secretId && !file)
  throw new Error('Missing required environment variable API_KEYS_SECRET_ID or API_KEYS_FILE');

const refreshIntervalMs = 5_000;
let ring: Promise<ApiKeyRing> | undefined;
let lastForcedRefresh = Number.NEGATIVE_INFINITY;

async function load(forceFetch: boolean): Promise<ApiKeyRing> {
  const text = secretId
    ? await getSecret<string>(secretId, { forceFetch, maxAge: 24 * 60 * 60 })
    : await readFile(file as string, 'utf8');
  if (typeof text !== 'string') throw new Error('The API key ring secret has no string value');
  return openApiKeyRing(parseApiKeyRingDocument(text));
}

export function apiKeyRing(): Promise<ApiKeyRing> {
  if (!ring) {
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
  ring = load(true).catch((error: unknown) => {
    ring = previous;
    throw error;
  });
  return ring;
}
