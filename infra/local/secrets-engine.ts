import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { closeServer } from '#infra/local/close-server';

/** A secret the engine keeps: its value lives in a file of its own, private to this user. */
export interface LocalSecret {
  readonly name: string;
  readonly arn: string;
  readonly file: string;
  /** The value CloudFormation would create the secret with, written the first time the secret is read. */
  readonly initialValue: () => string;
}

export interface SecretsEngine {
  readonly endpoint: string;
  /** The current value, as a function reading the secret would get it. */
  value(secretId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A stand-in for Secrets Manager on a loopback port, speaking the JSON protocol the AWS SDK uses, for the calls the
 * service makes: GetSecretValue, PutSecretValue and DescribeSecret, by ARN or name. No such engine ships on npm; the
 * deployed functions reach it through `AWS_ENDPOINT_URL_SECRETS_MANAGER`, so they read their keys exactly as in AWS.
 */
export async function startSecretsEngine(secrets: readonly LocalSecret[]): Promise<SecretsEngine> {
  const find = (secretId: unknown): LocalSecret | undefined =>
    secrets.find((secret) => secretId === secret.arn || secretId === secret.name);

  // The first read of a secret without a value writes its initial one; reads meanwhile wait for that write.
  const creating = new Map<LocalSecret, Promise<string>>();
  async function value(secret: LocalSecret): Promise<string> {
    try {
      return await readFile(secret.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      let created = creating.get(secret);
      if (!created) {
        const initial = secret.initialValue();
        created = write(secret, initial).then(() => initial);
        creating.set(secret, created);
        void created.finally(() => creating.delete(secret)).catch(() => undefined);
      }
      return created;
    }
  }

  const operations: Record<string, (input: Record<string, unknown>) => Promise<object>> = {
    async GetSecretValue(input) {
      const secret = existing(input.SecretId);
      return {
        ARN: secret.arn,
        Name: secret.name,
        SecretString: await value(secret),
        VersionId: randomUUID(),
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      };
    },
    async PutSecretValue(input) {
      const secret = existing(input.SecretId);
      if (typeof input.SecretString !== 'string')
        throw new EngineError('InvalidParameterException', 'SecretString is required');
      await write(secret, input.SecretString);
      return { ARN: secret.arn, Name: secret.name, VersionId: randomUUID(), VersionStages: ['AWSCURRENT'] };
    },
    async DescribeSecret(input) {
      const secret = existing(input.SecretId);
      return { ARN: secret.arn, Name: secret.name };
    },
  };

  function existing(secretId: unknown): LocalSecret {
    const secret = find(secretId);
    if (!secret)
      throw new EngineError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  }

  const server = createServer((request, response) => {
    serve(request, response, operations).catch((error: unknown) => {
      console.error('Local secrets engine failure', error);
      if (!response.headersSent)
        answer(response, 500, { __type: 'InternalServiceError', message: String(error) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async value(secretId) {
      return value(existing(secretId));
    },
    close: () => closeServer(server),
  };
}

class EngineError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  operations: Record<string, (input: Record<string, unknown>) => Promise<object>>,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const target = String(request.headers['x-amz-target'] ?? '');
  const operation = operations[target.replace(/^secretsmanager\./, '')];
  if (!operation) {
    return answer(response, 400, {
      __type: 'UnknownOperationException',
      message: `${target} is not served here`,
    });
  }
  try {
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    answer(response, 200, await operation(input));
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    answer(response, 400, { __type: error.type, message: error.message });
  }
}

function answer(response: ServerResponse, status: number, body: object): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(payload);
}

/** Beside and renamed, so a reader never sees half a value; for this user only. */
async function write(secret: LocalSecret, value: string): Promise<void> {
  await mkdir(dirname(secret.file), { recursive: true, mode: 0o700 });
  const temporary = `${secret.file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temporary, value, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, secret.file);
}
