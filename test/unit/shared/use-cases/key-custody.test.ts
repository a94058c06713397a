import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generateHashKey } from '#shared/api-keys/hash-key';
import {
  type ApiKeyRingDocument,
  generateApiKey,
  openApiKeyRing,
  withApiKey,
} from '#shared/api-keys/key-ring';
import { fileKeyCustody, keyFilesBeside } from '#shared/api-keys/key-ring-storage';
import { generateVapidKeys } from '#shared/api-keys/vapid-keys';
import { type memoryApiKeyStore, memoryKeyCustody } from '#test/support/memory-key-custody';

const store = vi.hoisted(() => ({ current: undefined as ReturnType<typeof memoryApiKeyStore> | undefined }));
vi.mock('#shared/store/api-keys', async () => {
  const { memoryApiKeyStore: make } = await import('#test/support/memory-key-custody');
  store.current = make();
  return store.current;
});
const { addApiKey, ensureKeyCustody, finishKeySplit } = await import('#shared/use-cases/api-keys');

const day = 24 * 60 * 60_000;
const firstKey = generateApiKey(2048);

/** A ring as deployments before the split kept it: RSA keys, hash key and VAPID keys in one document. */
function combinedRing(): ApiKeyRingDocument {
  return {
    ...withApiKey(undefined, firstKey, true),
    hashKey: generateHashKey().hashKey,
    vapid: generateVapidKeys(),
  };
}

describe('a deployment made before the split', () => {
  it('hands its hash key and VAPID keys over unchanged, and keeps its own copies until the split is finished', async () => {
    const legacy = combinedRing();
    const custody = memoryKeyCustody({ apiKeys: legacy });
    expect(await ensureKeyCustody(custody, 2048)).toEqual({ created: false, current: firstKey.kid });
    expect(await custody.hashKey.read()).toEqual({ hashKey: legacy.hashKey });
    expect(await custody.vapidKeys.read()).toEqual(legacy.vapid);
    // Still readable by the code of the deployment before, should this one roll back.
    const ring = await custody.apiKeys.read();
    expect(ring).toMatchObject({ hashKey: legacy.hashKey, vapid: legacy.vapid, keys: legacy.keys });
    expect(Date.parse(ring?.splitAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(store.current?.keys.has(firstKey.kid)).toBe(true);

    // A second deployment changes nothing: the same parts, the split not restarted.
    await ensureKeyCustody(custody, 2048);
    expect(await custody.apiKeys.read()).toEqual(ring);
    expect([custody.hashKey.writes, custody.vapidKeys.writes]).toEqual([1, 1]);
  });

  it('drops the ring’s copies only a grace period after the split, and only when the parts hold the same', async () => {
    const legacy = combinedRing();
    const custody = memoryKeyCustody({ apiKeys: legacy });
    await ensureKeyCustody(custody, 2048);
    const splitAt = Date.parse((await custody.apiKeys.read())?.splitAt ?? '');
    expect(await finishKeySplit(custody, { now: new Date(splitAt + day - 1), graceMs: day })).toEqual({
      finished: false,
    });
    expect((await custody.apiKeys.read())?.hashKey).toBe(legacy.hashKey);

    expect(await finishKeySplit(custody, { now: new Date(splitAt + day), graceMs: day })).toEqual({
      finished: true,
    });
    const ring = await custody.apiKeys.read();
    expect(ring).toEqual({ current: firstKey.kid, keys: legacy.keys });
    expect(openApiKeyRing(ring as ApiKeyRingDocument).current.kid).toBe(firstKey.kid);
    expect(await custody.hashKey.read()).toEqual({ hashKey: legacy.hashKey });
    expect(await custody.vapidKeys.read()).toEqual(legacy.vapid);
  });

  it('refuses to choose when a part already holds another key than the ring, and drops nothing', async () => {
    const legacy = combinedRing();
    const other = generateHashKey();
    const custody = memoryKeyCustody({ apiKeys: legacy, hashKey: other });
    await expect(ensureKeyCustody(custody, 2048)).rejects.toThrow(/differs from the key ring's copy/);
    expect(await custody.hashKey.read()).toEqual(other);
    expect(await custody.apiKeys.read()).toEqual(legacy);

    const split = { ...legacy, splitAt: new Date(0).toISOString() };
    const mismatched = memoryKeyCustody({ apiKeys: split, hashKey: other, vapidKeys: legacy.vapid });
    await expect(finishKeySplit(mismatched, { now: new Date(), graceMs: day })).rejects.toThrow(/differ/);
    expect(await mismatched.apiKeys.read()).toEqual(split);
  });

  it('keeps the hash key and VAPID keys through a rotation made before the split', async () => {
    const legacy = combinedRing();
    const custody = memoryKeyCustody({ apiKeys: legacy });
    const rotated = await addApiKey(custody.apiKeys, { bits: 2048, makeCurrent: true });
    expect(await custody.apiKeys.read()).toMatchObject({
      current: rotated.kid,
      hashKey: legacy.hashKey,
      vapid: legacy.vapid,
    });
  });
});

describe('a new deployment', () => {
  it('makes each part in its own place: the ring holds RSA keys only', async () => {
    const custody = memoryKeyCustody({});
    const { created, current } = await ensureKeyCustody(custody, 2048);
    expect(created).toBe(true);
    expect(await custody.apiKeys.read()).toEqual({
      current,
      keys: [expect.objectContaining({ kid: current })],
    });
    expect(Buffer.from((await custody.hashKey.read())?.hashKey ?? '', 'base64')).toHaveLength(32);
    expect(Buffer.from((await custody.vapidKeys.read())?.publicKey ?? '', 'base64url')).toHaveLength(65);
    expect(await finishKeySplit(custody, { now: new Date(), graceMs: 0 })).toEqual({ finished: false });
  });
});

describe('key files of a local data directory', () => {
  const directories: string[] = [];
  afterAll(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  it('refuse a damaged hash key rather than make a new one', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mfa-keys-'));
    directories.push(directory);
    const files = keyFilesBeside(join(directory, 'api-keys.json'));
    await writeFile(files.hashKey, '{"hashKey":"dG9vIHNob3J0"}\n');
    await chmod(files.hashKey, 0o600);
    await expect(ensureKeyCustody(fileKeyCustody(files), 2048)).rejects.toThrow(/32 bytes/);
    expect(await readFile(files.hashKey, 'utf8')).toBe('{"hashKey":"dG9vIHNob3J0"}\n');
  });
});
