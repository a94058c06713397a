import { type ApiKeySize, apiKeySizes } from '#shared/api-keys/key-ring';
import { secretKeyCustody } from '#shared/api-keys/key-ring-storage';
import { logger } from '#shared/log';
import { countMetric, metrics } from '#shared/metrics';
import { addApiKey, currentApiKeyAgeDays, finishKeySplit } from '#shared/use-cases/api-keys';

/** How long a ring split by a deployment keeps its old copies: past any rollback of that deployment. */
const splitGraceMs = 24 * 60 * 60_000;

/**
 * The key ring's scheduled work. Daily: publish the current API key's age (`ApiKeyAgeDays`, which the key-age alarm
 * watches) and finish the split of a ring from an older deployment. With `rotate` (the optional rotation schedule):
 * first rotate as `admin api-key rotate` does, a new current key while older ones stay for decryption.
 */
export async function handler(event: { readonly rotate?: boolean }): Promise<{ ageDays?: number }> {
  const custody = await secretKeyCustody({
    apiKeys: requiredVariable('API_KEYS_SECRET_ID'),
    hashKey: requiredVariable('HASH_KEY_SECRET_ID'),
    vapidKeys: requiredVariable('VAPID_KEYS_SECRET_ID'),
  });
  const { finished } = await finishKeySplit(custody, { now: new Date(), graceMs: splitGraceMs });
  if (finished) logger.info('The key ring no longer holds the hash key and VAPID keys');
  if (event.rotate === true) {
    const bits = Number(process.env.API_KEY_BITS ?? 2048);
    if (!apiKeySizes.includes(bits as ApiKeySize)) throw new Error(`API_KEY_BITS ${bits} is not supported`);
    const key = await addApiKey(custody.apiKeys, { bits: bits as ApiKeySize, makeCurrent: true });
    logger.info('API key rotated on schedule', { currentKeyId: key.kid });
  }
  const ageDays = await currentApiKeyAgeDays(new Date());
  if (ageDays === undefined) return {};
  countMetric('ApiKeyAgeDays', ageDays);
  // No request pipeline flushes metrics here.
  metrics.publishStoredMetrics();
  return { ageDays };
}

function requiredVariable(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}
