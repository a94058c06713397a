import { describe, expect, it, vi } from 'vitest';
import { generateHashKey } from '#shared/api-keys/hash-key';
import { generateApiKey, withApiKey } from '#shared/api-keys/key-ring';
import { generateVapidKeys } from '#shared/api-keys/vapid-keys';
import { type MemoryKeyCustody, memoryKeyCustody } from '#test/support/memory-key-custody';

process.env.TABLE_NAME ??= 'unit';
process.env.AWS_REGION ??= 'us-east-1';
Object.assign(process.env, {
  API_KEYS_SECRET_ID: 'arn:ring',
  HASH_KEY_SECRET_ID: 'arn:hash',
  VAPID_KEYS_SECRET_ID: 'arn:vapid',
});
const state = vi.hoisted(() => ({
  custody: undefined as MemoryKeyCustody | undefined,
  metrics: [] as [string, number][],
}));
vi.mock('#shared/api-keys/key-ring-storage', () => ({ secretKeyCustody: async () => state.custody }));
vi.mock('#shared/store/api-keys', async () =>
  (await import('#test/support/memory-key-custody')).memoryApiKeyStore(),
);
vi.mock('#shared/metrics', () => ({
  countMetric: (name: string, value: number) => state.metrics.push([name, value]),
  metrics: { publishStoredMetrics: () => undefined },
}));
const { handler } = await import('#functions/deploy/api-key-schedule');
const { ensureKeyCustody } = await import('#shared/use-cases/api-keys');

const day = 24 * 60 * 60_000;

describe('the key ring schedule', () => {
  it('publishes the current API key’s age in days, which the key-age alarm watches', async () => {
    const made = new Date(Date.now() - 400 * day);
    state.custody = memoryKeyCustody({ apiKeys: withApiKey(undefined, generateApiKey(2048, made), true) });
    await ensureKeyCustody(state.custody, 2048);
    const { ageDays } = await handler({});
    expect(Math.floor(ageDays ?? 0)).toBe(400);
    expect(state.metrics.at(-1)).toEqual(['ApiKeyAgeDays', ageDays]);
  });

  it('rotates when the rotation schedule asks, as `admin api-key rotate` does: a new current key, the old one kept', async () => {
    const old = generateApiKey(2048, new Date(Date.now() - 90 * day));
    state.custody = memoryKeyCustody({ apiKeys: withApiKey(undefined, old, true) });
    await ensureKeyCustody(state.custody, 2048);
    const hashKey = await state.custody.hashKey.read();
    const { ageDays } = await handler({ rotate: true });
    const ring = await state.custody.apiKeys.read();
    expect(ring?.current).not.toBe(old.kid);
    expect(ring?.keys.map((key) => key.kid)).toContain(old.kid);
    expect(ageDays).toBeLessThan(1);
    expect(await state.custody.hashKey.read()).toEqual(hashKey);
  });

  it('finishes the split of an older deployment’s ring a day after it began', async () => {
    const legacy = {
      ...withApiKey(undefined, generateApiKey(2048), true),
      ...generateHashKey(),
      vapid: generateVapidKeys(),
    };
    state.custody = memoryKeyCustody({
      apiKeys: { ...legacy, splitAt: new Date(Date.now() - 2 * day).toISOString() },
    });
    await ensureKeyCustody(state.custody, 2048);
    await handler({});
    expect(await state.custody.apiKeys.read()).toEqual({ current: legacy.current, keys: legacy.keys });
  });
});
