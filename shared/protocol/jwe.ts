import type { KeyObject as NodeKeyObject } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from 'jose';
import { clip, echoValue, idEchoLength } from '#shared/echo';
import type { KeyMaterial } from '#shared/protocol/jws';
import { ProtocolRejection } from '#shared/protocol/rejection';

/** PY's pinned pyjwkest only knows RSA-OAEP; the Java SDK sends RSA-OAEP-256. RSA1_5 is never accepted. */
export type KeyManagementAlgorithm = 'RSA-OAEP' | 'RSA-OAEP-256';
export const keyManagementAlgorithms: readonly KeyManagementAlgorithm[] = ['RSA-OAEP', 'RSA-OAEP-256'];
export const contentEncryptionAlgorithm = 'A256CBC-HS512';

/** The server's keys are node KeyObjects (the default); the client's may be any `KeyMaterial`. */
export interface Recipient<K extends KeyMaterial = NodeKeyObject> {
  readonly kid: string;
  readonly publicKey: K;
}

export interface EncryptOptions {
  readonly algorithm?: KeyManagementAlgorithm;
  /** The Java SDK marks its request bodies `application/json`; responses carry no `cty`. */
  readonly contentType?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Encrypts a JSON value as a compact JWE whose `kid` tells the recipient which of its keys to use. */
export async function encryptJson(
  value: unknown,
  recipient: Recipient<KeyMaterial>,
  options: EncryptOptions = {},
): Promise<string> {
  const header: {
    alg: KeyManagementAlgorithm;
    enc: typeof contentEncryptionAlgorithm;
    kid: string;
    cty?: string;
  } = {
    alg: options.algorithm ?? 'RSA-OAEP',
    enc: contentEncryptionAlgorithm,
    kid: recipient.kid,
  };
  if (options.contentType) header.cty = options.contentType;
  return new CompactEncrypt(encoder.encode(JSON.stringify(value)))
    .setProtectedHeader(header)
    .encrypt(recipient.publicKey);
}

/**
 * Finds the private key for a JWE's `kid` (undefined when the JWE names none) and `alg` (a WebCrypto key serves one
 * algorithm); undefined when there is no such key.
 */
export type DecryptionKeyResolver = (
  kid: string | undefined,
  alg: KeyManagementAlgorithm,
) => KeyMaterial | undefined | Promise<KeyMaterial | undefined>;

export interface DecryptedJson {
  readonly value: unknown;
  readonly kid: string | undefined;
}

/** Decrypts a compact JWE and parses its plaintext as JSON, refusing every algorithm outside the allow-lists. */
export async function decryptJson(jwe: string, resolveKey: DecryptionKeyResolver): Promise<DecryptedJson> {
  if (typeof jwe !== 'string' || jwe.split('.').length !== 5) {
    throw new ProtocolRejection('malformed', 'the body is not a compact JWE');
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwe);
  } catch (cause) {
    throw new ProtocolRejection('malformed', 'the JWE protected header does not decode', { cause });
  }
  if (!keyManagementAlgorithms.includes(header.alg as KeyManagementAlgorithm)) {
    throw new ProtocolRejection('malformed', `JWE alg ${echoValue(header.alg)} is not accepted`);
  }
  if (header.enc !== contentEncryptionAlgorithm) {
    throw new ProtocolRejection('malformed', `JWE enc ${echoValue(header.enc)} is not accepted`);
  }
  if (header.kid !== undefined && typeof header.kid !== 'string') {
    throw new ProtocolRejection('malformed', 'the JWE kid is not a string');
  }
  const key = await resolveKey(header.kid, header.alg as KeyManagementAlgorithm);
  if (!key)
    throw new ProtocolRejection(
      'unknown-key',
      `no key with kid ${header.kid === undefined ? '(none)' : clip(header.kid, idEchoLength)}`,
    );
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: [...keyManagementAlgorithms],
      contentEncryptionAlgorithms: [contentEncryptionAlgorithm],
    }));
  } catch (cause) {
    throw new ProtocolRejection('decryption', 'the JWE does not decrypt', { cause });
  }
  try {
    return { value: JSON.parse(decoder.decode(plaintext)), kid: header.kid };
  } catch (cause) {
    throw new ProtocolRejection('content', 'the decrypted JWE is not UTF-8 JSON', { cause });
  }
}
