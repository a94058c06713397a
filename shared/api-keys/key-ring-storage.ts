import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ApiKeyRingDocument, parseApiKeyRingDocument } from '#shared/api-keys/key-ring';

/** Where the API key ring document is kept: a file locally, a Secrets Manager secret in AWS. */
export interface ApiKeyRingStorage {
  readonly description: string;
  read(): Promise<ApiKeyRingDocument | undefined>;
  write(document: ApiKeyRingDocument): Promise<void>;
}

export function fileKeyRingStorage(path: string): ApiKeyRingStorage {
  return {
    description: `file ${path}`,
    async read() {
      try {
        return parseApiKeyRingDocument(await readFile(path, 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async write(document) {
      await mkdir(dirname(path), { recursive: true });
      // Write beside and rename, so a reader never sees half a key ring; private keys are readable by the owner only.
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    },
  };
}

export async function secretKeyRingStorage(secretId: string): Promise<ApiKeyRingStorage> {
  const { SecretsManagerClient, GetSecretValueCommand, PutSecretValueCommand, ResourceNotFoundException } =
    await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  return {
    description: `secret ${secretId}`,
    async read() {
      try {
        const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
        if (!SecretString) return undefined;
        try {
          return parseApiKeyRingDocument(SecretString);
        } catch {
          // The placeholder the stack creates the secret with, until the ApiKeyRing custom resource writes the ring.
          return undefined;
        }
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
    async write(document) {
      await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(document) }),
      );
    },
  };
}
