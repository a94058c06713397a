import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import { fileKeyCustody, keyFilesBeside } from '#shared/api-keys/key-ring-storage';
import { getOrganization } from '#shared/store/organizations';
import { ensureKeyCustody, finishKeySplit } from '#shared/use-cases/api-keys';
import { createOrganization } from '#shared/use-cases/create-organization';

/**
 * First-start setup of a data directory, and its checks on every later start. Imported only after the environment
 * names the table, because the store reads its configuration when it loads.
 */
export function apiKeysFile(dataDir: string): string {
  return join(dataDir, 'api-keys.json');
}

/**
 * Creates the keys on first start, each part in its own file; publishes the ring's public keys to the table on every
 * start. A data directory from before the split keeps its hash key and VAPID keys, moved out of `api-keys.json` at
 * once: no rollback to wait for here.
 */
export async function ensureApiKeys(dataDir: string, bits: ApiKeySize): Promise<{ created: boolean }> {
  const custody = fileKeyCustody(keyFilesBeside(apiKeysFile(dataDir)));
  const { created } = await ensureKeyCustody(custody, bits);
  await finishKeySplit(custody, { now: new Date(), graceMs: 0 });
  return { created };
}

export interface DemoOrganization {
  readonly organizationId: string;
  readonly kid: string;
  readonly privateKeyPath: string;
}

/** The demo organization a new user makes a first signed call with; its private key is written beside the data. */
export async function ensureDemoOrganization(
  dataDir: string,
): Promise<DemoOrganization & { created: boolean }> {
  const recordPath = join(dataDir, 'demo-organization.json');
  const existing = await readJson<DemoOrganization>(recordPath);
  if (existing && (await getOrganization(existing.organizationId))) return { ...existing, created: false };

  const { organization, key, privateKeyPem } = await createOrganization({ name: 'Demo Organization' });
  const privateKeyPath = join(dataDir, 'demo-organization.key.pem');
  await writeFile(privateKeyPath, privateKeyPem ?? '', { mode: 0o600 });
  await chmod(privateKeyPath, 0o600);
  const record: DemoOrganization = { organizationId: organization.id, kid: key.kid, privateKeyPath };
  await writeFile(recordPath, `${JSON.stringify(record, null, 2)}\n`);
  return { ...record, created: true };
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
