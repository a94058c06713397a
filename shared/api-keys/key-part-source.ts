import { readFile } from 'node:fs/promises';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traced } from '#shared/tracing';
import { inRequestClientConfig } from '#shared/aws/in-request-client-config';

let secrets: SecretsProvider | undefined;
/**
 * One provider per container, made on the first read, whose reads show in the trace of the cold start they slow, and
 * which fail the request that waits on them as a store read would (in-request-client-config.ts).
 */
const secretsProvider = () =>
  (secrets ??= new SecretsProvider({
    awsSdkV3Client: traced(new SecretsManagerClient(inRequestClientConfig())),
  }));

/**
 * Where this container reads one part of the deployment's keys: the secret its function was given (`<secretVariable>`)
 * in AWS, a file (`<fileVariable>`) locally. Resolved when the module that needs the part loads, so a function that
 * uses a part its row does not grant fails at once rather than on its first request.
 */
export function keyPartSource(
  part: string,
  secretVariable: string,
  fileVariable: string,
): (forceFetch: boolean) => Promise<string> {
  const secretId = process.env[secretVariable];
  const file = process.env[fileVariable];
  if (!secretId && !file)
    throw new Error(`Missing required environment variable ${secretVariable} or ${fileVariable}`);
  return async (forceFetch) => {
    const text = secretId
      ? await secretsProvider().get<string>(secretId, { forceFetch, maxAge: 24 * 60 * 60 })
      : await readFile(file as string, 'utf8');
    if (typeof text !== 'string') throw new Error(`The ${part} secret has no string value`);
    return text;
  };
}
