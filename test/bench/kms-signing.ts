import { fork } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { importSPKI, jwtVerify, SignJWT } from 'jose';
import { apiKeySizes, type ApiKeySize } from '#shared/api-keys/key-ring';
import { cpuMs, percentile, round } from '#test/bench/stats';
import { projectRoot } from '#test/support/service-process';

/**
 * What KMS charges per million Sign requests (US regions, as priced when this was written): RSA 2048 requests at the
 * symmetric rate, larger RSA keys at the asymmetric one.
 */
export const kmsDollarsPerMillionSigns: Record<ApiKeySize, number> = { 2048: 3, 3072: 15, 4096: 15 };

/** KMS's default shared quota of cryptographic requests on RSA keys, per second, per account and region. */
export const kmsRsaRequestsPerSecond = 500;

export interface KmsSigningFigures {
  readonly signatures: number;
  readonly modelledRoundTripMs: number;
  readonly sizes: readonly {
    readonly bits: ApiKeySize;
    /** The response JWT signed in the function with the key from the secret, as today. */
    readonly local: { readonly cpuMs: number; readonly medianMs: number; readonly p99Ms: number };
    /** The same JWT signed by a KMS Sign call (the digest computed in the function). */
    readonly kms: { readonly cpuMs: number; readonly medianMs: number; readonly p99Ms: number };
    readonly dollarsPerMillion: number;
  }[];
}

/**
 * The API's response signature made in the function (today) and by AWS KMS, modelled: the real KMS client against a
 * stand-in in another process that answers after `roundTripMs`, so the function's CPU is measured and KMS's latency
 * is the model's. Each KMS signature is verified once, so the model signs what the SDKs would accept.
 */
export async function benchKmsSigning(options: {
  readonly signatures: number;
  readonly roundTripMs: number;
}): Promise<KmsSigningFigures> {
  const stub = fork(join(projectRoot, 'test/bench/kms-stub-process.ts'), [String(options.roundTripMs)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  try {
    const { endpoint, publicKeys } = await new Promise<{
      endpoint: string;
      publicKeys: Record<string, string>;
    }>((resolve) => stub.once('message', resolve as never));
    const client = new KMSClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' },
      maxAttempts: 1,
    });
    const claims = { iss: 'lka', aud: 'svc:bench', sub: 'svc:bench', response: { status: 200 } };
    const sizes: KmsSigningFigures['sizes'][number][] = [];
    for (const bits of apiKeySizes) {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits });
      const signLocally = () =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS512', kid: 'bench', typ: 'JWT' }).sign(privateKey);
      const signWithKms = async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'RS512', kid: 'bench', typ: 'JWT' })).toString(
          'base64url',
        );
        const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
        const digest = createHash('sha512').update(`${header}.${payload}`).digest();
        const { Signature } = await client.send(
          new SignCommand({
            KeyId: `rsa-${bits}`,
            Message: digest,
            MessageType: 'DIGEST',
            SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_512',
          }),
        );
        return `${header}.${payload}.${Buffer.from(Signature as Uint8Array).toString('base64url')}`;
      };
      await jwtVerify(await signWithKms(), await importSPKI(publicKeys[bits] as string, 'RS512'), {
        audience: 'svc:bench',
      });
      const local = await timed(options.signatures, signLocally);
      const kms = await timed(options.signatures, signWithKms);
      sizes.push({ bits, local, kms, dollarsPerMillion: kmsDollarsPerMillionSigns[bits] });
    }
    client.destroy();
    return { signatures: options.signatures, modelledRoundTripMs: options.roundTripMs, sizes };
  } finally {
    stub.disconnect();
  }
}

/** CPU per call, and the median and p99 of each call's time, over `count` calls one after another. */
async function timed(
  count: number,
  call: () => Promise<unknown>,
): Promise<{ cpuMs: number; medianMs: number; p99Ms: number }> {
  for (let warmup = 0; warmup < 3; warmup++) await call();
  const durations: number[] = [];
  const cpu = await cpuMs(async () => {
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await call();
      durations.push(performance.now() - started);
    }
  });
  return {
    cpuMs: round(cpu / count),
    medianMs: round(percentile(durations, 50), 2),
    p99Ms: round(percentile(durations, 99), 2),
  };
}
