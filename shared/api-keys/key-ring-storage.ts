import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type HashKeyDocument, parseHashKeyDocument } from '#shared/api-keys/hash-key';
import { type ApiKeyRingDocument, parseApiKeyRingDocument } from '#shared/api-keys/key-ring';
import { parseVapidKeys, type VapidKeys } from '#shared/api-keys/vapid-keys';

/** Where one part of the deployment's keys is kept: a file locally, a Secrets Manager secret in AWS. */
export interface KeyPartStorage<T> {
  readonly description: string;
  read(): Promise<T | undefined>;
  write(value: T): Promise<void>;
}

export type ApiKeyRingStorage = KeyPartStorage<ApiKeyRingDocument>;

/**
 * The deployment's keys, each part in a place of its own so that each can be granted only to the functions that use
 * it: the API's RSA key ring, the hash key, the VAPID key pair.
 */
export interface KeyCustody {
  readonly apiKeys: ApiKeyRingStorage;
  readonly hashKey: KeyPartStorage<HashKeyDocument>;
  readonly vapidKeys: KeyPartStorage<VapidKeys>;
}

/** Where each part is, by file or by secret id. */
export interface KeyLocations {
  readonly apiKeys: string;
  readonly hashKey: string;
  readonly vapidKeys: string;
}

/**
 * The value the stack creates the hash key and VAPID secrets with, until the ApiKeyRing custom resource writes them.
 * A secret holding anything else must parse: a damaged hash key is an error, never a reason to make a new one.
 */
export const keySecretPlaceholder = '{"placeholder":"written by the ApiKeyRing custom resource at deploy"}';

/** The local data directory's key files, beside its `api-keys.json`: one per part, as in AWS. */
export function keyFilesBeside(apiKeysFile: string): KeyLocations {
  const directory = dirname(apiKeysFile);
  return {
    apiKeys: apiKeysFile,
    hashKey: join(directory, 'hash-key.json'),
    vapidKeys: join(directory, 'vapid-keys.json'),
  };
}

/** The variables that point this process's functions at key files (the local runtime's stand-in for secrets). */
export function keyFileEnvironment(files: KeyLocations): Record<string, string> {
  return { API_KEYS_FILE: files.apiKeys, HASH_KEY_FILE: files.hashKey, VAPID_KEYS_FILE: files.vapidKeys };
}

export function fileKeyCustody(files: KeyLocations): KeyCustody {
  return {
    apiKeys: fileKeyRingStorage(files.apiKeys),
    hashKey: filePartStorage(files.hashKey, parseHashKeyDocument),
    vapidKeys: filePartStorage(files.vapidKeys, parseVapidKeys),
  };
}

export async function secretKeyCustody(secretIds: KeyLocations): Promise<KeyCustody> {
  return {
    apiKeys: await secretKeyRingStorage(secretIds.apiKeys),
    hashKey: await secretHashKeyStorage(secretIds.hashKey),
    vapidKeys: await secretPartStorage(secretIds.vapidKeys, parseVapidKeys),
  };
}

export function fileKeyRingStorage(path: string): ApiKeyRingStorage {
  return filePartStorage(path, parseApiKeyRingDocument);
}

function filePartStorage<T>(path: string, parse: (text: string) => T): KeyPartStorage<T> {
  return {
    description: `file ${path}`,
    async read() {
      try {
        return parse(await readFile(path, 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async write(value) {
      await mkdir(dirname(path), { recursive: true });
      // Write beside and rename, so a reader never sees half a document; keys are readable by the owner only.
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    },
  };
}

export async function secretKeyRingStorage(secretId: string): Promise<ApiKeyRingStorage> {
  return secretPartStorage(secretId, (text) => {
    try {
      return parseApiKeyRingDocument(text);
    } catch {
      // The random value the stack first created this secret with, until the custom resource writes the ring.
      return undefined;
    }
  });
}

export async function secretHashKeyStorage(secretId: string): Promise<KeyPartStorage<HashKeyDocument>> {
  return secretPartStorage(secretId, parseHashKeyDocument);
}

async function secretPartStorage<T>(
  secretId: string,
  parse: (text: string) => T | undefined,
): Promise<KeyPartStorage<T>> {
  const { SecretsManagerClient, GetSecretValueCommand, PutSecretValueCommand, ResourceNotFoundException } =
    await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  return {
    description: `secret ${secretId}`,
    async read() {
      try {
        const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
        if (!SecretString || SecretString === keySecretPlaceholder) return undefined;
        return parse(SecretString);
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
    async write(value) {
      await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(value) }),
      );
    },
  };
}
