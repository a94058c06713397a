import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateHashKey } from '#shared/api-keys/hash-key';
import { type ApiKeyRingDocument, generateApiKey, withApiKey } from '#shared/api-keys/key-ring';
import { generateVapidKeys } from '#shared/api-keys/vapid-keys';
import { openUserPushId, serviceUserHash } from '#shared/domain/user-identity';
import { newAuthScene } from '#test/support/auth-scene';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

// A data directory as the local runtime kept it before the split: one file with every key.
const apiKey = generateApiKey(2048);
const legacy: ApiKeyRingDocument = {
  ...withApiKey(undefined, apiKey, true),
  ...generateHashKey(),
  vapid: generateVapidKeys(),
};
const legacyHashKey = Buffer.from(legacy.hashKey as string, 'base64');
let dataDir: string;
let service: TestRuntime | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mfa-legacy-keys-'));
  await writeFile(join(dataDir, 'api-keys.json'), `${JSON.stringify(legacy, null, 2)}\n`, { mode: 0o600 });
  service = await startTestRuntime({ dataDir });
});
afterAll(async () => {
  await service?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const readJson = async (name: string) => JSON.parse(await readFile(join(dataDir, name), 'utf8')) as unknown;

describe('a local data directory from before the key split', () => {
  it('keeps serving with its API key, and keeps each part in a private file of its own', async () => {
    const answer = await fetch(`${service?.baseUrl}/public/v3/public-key`);
    expect(answer.headers.get('x-iov-key-id')).toBe(apiKey.kid);
    expect(await readJson('api-keys.json')).toEqual({ current: apiKey.kid, keys: legacy.keys });
    expect(await readJson('hash-key.json')).toEqual({ hashKey: legacy.hashKey });
    expect(await readJson('vapid-keys.json')).toEqual(legacy.vapid);
    for (const name of ['api-keys.json', 'hash-key.json', 'vapid-keys.json'])
      expect(((await stat(join(dataDir, name))).mode & 0o777).toString(8)).toBe('600');
  });

  it('gives applications the user hashes of its old hash key, and browsers its old VAPID key', async () => {
    const scene = await newAuthScene(service as TestRuntime);
    const device = await scene.linkDevice('alice');
    const created = await scene.ask({ username: 'alice' });
    const [pending] = await device.pending();
    await device.answer(pending as NonNullable<typeof pending>, { approve: true });
    const read = await scene.read(created.auth_request);
    expect(read.status).toBe(200);
    const user = openUserPushId(legacyHashKey, read.body?.user_push_id ?? '');
    expect(user?.serviceId).toBe(scene.serviceId);
    expect(read.body?.service_user_hash).toBe(
      serviceUserHash(legacyHashKey, scene.serviceId, user?.userId ?? ''),
    );
    expect((await device.pushSettings()).vapid_public_key).toBe(legacy.vapid?.publicKey);
  });
});
