import { createPrivateKey, type KeyObject, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CompactEncrypt, compactDecrypt, jwtVerify, SignJWT } from 'jose';
import { cpuMs } from '#test/bench/stats';

export interface ApiSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

/** The API's current private key, from the key ring file the service reads. */
export async function currentApiKey(apiKeysFile: string): Promise<ApiSigningKey> {
  const ring = JSON.parse(await readFile(apiKeysFile, 'utf8')) as {
    current: string;
    keys: { kid: string; privateKey: string }[];
  };
  const current = ring.keys.find((key) => key.kid === ring.current);
  if (!current) throw new Error(`${apiKeysFile} has no current key`);
  return { kid: current.kid, privateKey: createPrivateKey(current.privateKey) };
}

/** One signed request and its response, as far as the crypto they need goes. */
export interface SignedExchange {
  readonly token: string;
  /** When the request was signed: its JWT is verified as of then. */
  readonly sentAt?: Date;
  /** The caller's key: it verifies the request, and the response's body is encrypted to it. */
  readonly caller: { readonly publicKey: KeyObject; readonly kid: string };
  readonly body?: string | undefined;
  /** The response body's plaintext, when it has one. */
  readonly response?: Uint8Array | undefined;
  readonly status: number;
  /** A create also signs the push package. */
  readonly pushPackage?: boolean;
}

/**
 * CPU milliseconds of the crypto no implementation of the protocol can avoid for these exchanges: an RSA verify of
 * each request JWT, a JWE decrypt of each body, a JWE encrypt of each response body to the caller, an RS512 sign of
 * each response JWT, and a create's push package signature.
 */
export async function unavoidableCryptoMs(
  apiKey: ApiSigningKey,
  exchanges: readonly SignedExchange[],
): Promise<number> {
  return cpuMs(async () => {
    for (const exchange of exchanges) {
      await jwtVerify(exchange.token, exchange.caller.publicKey, {
        audience: 'lka',
        clockTolerance: 30,
        ...(exchange.sentAt ? { currentDate: exchange.sentAt } : {}),
      });
      if (exchange.body) await compactDecrypt(exchange.body, apiKey.privateKey);
      if (exchange.response) {
        await new CompactEncrypt(exchange.response)
          .setProtectedHeader({ alg: 'RSA-OAEP', enc: 'A256CBC-HS512', kid: exchange.caller.kid })
          .encrypt(exchange.caller.publicKey);
      }
      await new SignJWT({
        iss: 'lka',
        aud: 'caller',
        jti: randomUUID(),
        response: { status: exchange.status },
      })
        .setProtectedHeader({ alg: 'RS512', kid: apiKey.kid })
        .sign(apiKey.privateKey);
      if (exchange.pushPackage) {
        await new SignJWT({ iss: 'lka', aud: 'dev', jti: randomUUID(), auth_request: randomUUID() })
          .setProtectedHeader({ alg: 'RS512', kid: apiKey.kid, typ: 'JWT' })
          .sign(apiKey.privateKey);
      }
    }
  });
}
