import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keyPartSource } from '#shared/api-keys/key-part-source';

/** A stand-in for Secrets Manager's GetSecretValue: what the functions call in AWS for each part of the keys. */
let server: Server;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
      const known =
        request.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && SecretId === 'hash-key';
      asked.push(SecretId);
      response.writeHead(known ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify(
          known
            ? {
                ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hash-key',
                Name: SecretId,
                SecretString: `{"n":${asked.length}}`,
              }
            : {
                __type: 'ResourceNotFoundException',
                message: 'Secrets Manager can’t find the specified secret.',
              },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vi.stubEnv(
    'AWS_ENDPOINT_URL_SECRETS_MANAGER',
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  );
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server.close(resolve));
});

describe('a part of the keys', () => {
  it('is read from its secret once per container, and again only when forced', async () => {
    vi.stubEnv('HASH_KEY_SECRET_ID', 'hash-key');
    const source = keyPartSource('hash key', 'HASH_KEY_SECRET_ID', 'HASH_KEY_FILE');
    expect(await source(false)).toBe('{"n":1}');
    expect(await source(false)).toBe('{"n":1}');
    expect(await source(true)).toBe('{"n":2}');
    expect(asked).toEqual(['hash-key', 'hash-key']);
  });

  it('fails when its secret is not there, rather than answering without it', async () => {
    vi.stubEnv('VAPID_KEYS_SECRET_ID', 'vapid-keys');
    const source = keyPartSource('VAPID key', 'VAPID_KEYS_SECRET_ID', 'VAPID_KEYS_FILE');
    await expect(source(false)).rejects.toThrow(/can.t find the specified secret/);
  });

  it('is read from its file locally', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'key-part-')), 'hash-key.json');
    await writeFile(file, '{"local":true}');
    vi.stubEnv('HASH_KEY_SECRET_ID', '');
    vi.stubEnv('HASH_KEY_FILE', file);
    expect(await keyPartSource('hash key', 'HASH_KEY_SECRET_ID', 'HASH_KEY_FILE')(false)).toBe(
      '{"local":true}',
    );
  });

  it('refuses to load without a secret or a file, so a function without its grant fails at once', () => {
    vi.stubEnv('API_KEYS_SECRET_ID', '');
    vi.stubEnv('API_KEYS_FILE', '');
    expect(() => keyPartSource('API key ring', 'API_KEYS_SECRET_ID', 'API_KEYS_FILE')).toThrow(
      'Missing required environment variable API_KEYS_SECRET_ID or API_KEYS_FILE',
    );
  });
});
