import {
  ASN1BitString,
  ASN1Class,
  ASN1EncodableSequence,
  ASN1Form,
  ASN1Null,
  ASN1ObjectIdentifier,
  ASN1Value,
  encodeASN1,
  encodeObjectIdentifier,
  parseASN1NoLeftoverBytes,
} from '@oslojs/asn1';
import { md5 } from '@noble/hashes/legacy.js';
import { base64url, type JWK } from 'jose';

/**
 * RSA keys in PEM without node:crypto, so that the same code reads them on the server, in the CLI and in a browser.
 * WebCrypto imports neither PKCS#1 PEM nor computes the MD5 key id, so the DER is read here and the keys are handed
 * to jose as JWKs, which jose imports once per algorithm and caches.
 */

/** Smallest RSA modulus the service accepts for any key it verifies with or encrypts to. */
import { checkPublicExponent, InvalidKeyError, minimumModulusBits } from '#shared/protocol/key-rules';

export { InvalidKeyError, minimumModulusBits };

export interface RsaPublicKey {
  /** docs/protocol.md#key-ids */
  readonly kid: string;
  /** SubjectPublicKeyInfo DER. */
  readonly spki: Uint8Array;
  /** The key as SPKI PEM, the form the Java SDK parses. */
  readonly pem: string;
  readonly modulusBits: number;
  /** A frozen public JWK: jose verifies and encrypts with it under any RSA algorithm. */
  readonly jwk: JWK;
}

export interface RsaPrivateKey {
  readonly publicKey: RsaPublicKey;
  /** A frozen private JWK: jose signs and decrypts with it under any RSA algorithm. */
  readonly jwk: JWK;
}

const rsaEncryption = '1.2.840.113549.1.1.1';
const publicCache = new Map<string, RsaPublicKey>();
const cacheLimit = 1_000;

/** Reads an RSA public key given as SPKI (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`) PEM. */
export function parseRsaPublicKeyPem(pem: string): RsaPublicKey {
  const cached = publicCache.get(pem);
  if (cached) return cached;
  const match =
    typeof pem === 'string'
      ? /-----BEGIN (RSA )?PUBLIC KEY-----([^-]*)-----END \1PUBLIC KEY-----/.exec(pem)
      : null;
  if (!match) {
    throw new InvalidKeyError('expected a PEM public key (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY)');
  }
  const key = parsed('a public key', () => {
    const der = decodeBase64(match[2] ?? '');
    const pkcs1 = match[1] ? der : spkiRsaKey(der);
    const [n, e] = integers(pkcs1, 2);
    return rsaPublicKey(n, e);
  });
  if (publicCache.size >= cacheLimit) publicCache.clear();
  publicCache.set(pem, key);
  return key;
}

/** Reads an RSA private key given as PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`) PEM. */
export function parseRsaPrivateKeyPem(pem: string): RsaPrivateKey {
  const match =
    typeof pem === 'string'
      ? /-----BEGIN (RSA )?PRIVATE KEY-----([^-]*)-----END \1PRIVATE KEY-----/.exec(pem)
      : null;
  if (!match) throw new InvalidKeyError('the PEM text does not parse as an unencrypted private key');
  return parsed('an unencrypted private key', () => {
    const der = decodeBase64(match[2] ?? '');
    const pkcs1 = match[1] ? der : pkcs8RsaKey(der);
    // RSAPrivateKey: version, n, e, d, p, q, dp, dq, qi.
    const [, n, e, d, p, q, dp, dq, qi] = integers(pkcs1, 9);
    const publicKey = rsaPublicKey(n, e);
    const jwk = Object.freeze({
      ...publicKey.jwk,
      d: encodeInteger(d),
      p: encodeInteger(p),
      q: encodeInteger(q),
      dp: encodeInteger(dp),
      dq: encodeInteger(dq),
      qi: encodeInteger(qi),
    });
    return { publicKey, jwk };
  });
}

/** The key id both SDKs compute: MD5 over the SPKI DER, lowercase hex pairs joined by colons (docs/protocol.md#key-ids). */
export function spkiKeyId(spki: Uint8Array): string {
  return [...md5(spki)].map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/** PEM text of DER bytes, 64 columns, as node:crypto and OpenSSL write it. */
export function encodePem(label: string, der: Uint8Array): string {
  const body = encodeBase64(der).replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ''));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function parsed<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (cause instanceof InvalidKeyError) throw cause;
    throw new InvalidKeyError(`the PEM text does not parse as ${what}`, { cause });
  }
}

function spkiRsaKey(der: Uint8Array): Uint8Array {
  const spki = parseASN1NoLeftoverBytes(der).sequence();
  assertRsaAlgorithm(spki.at(0));
  const bits = spki.at(1).bitString();
  return bits.bytes;
}

function pkcs8RsaKey(der: Uint8Array): Uint8Array {
  const info = parseASN1NoLeftoverBytes(der).sequence();
  assertRsaAlgorithm(info.at(1));
  return info.at(2).octetString().value;
}

function assertRsaAlgorithm(algorithm: ASN1Value): void {
  const oid = algorithm.sequence().at(0).objectIdentifier();
  if (!oid.is(rsaEncryption)) throw new InvalidKeyError('expected an RSA key, got another key type');
}

// The DER contents of the first `count` INTEGERs of a SEQUENCE: big-endian two's complement, positive here.
function integers(der: Uint8Array, count: number): Uint8Array[] {
  const sequence = parseASN1NoLeftoverBytes(der).sequence();
  return Array.from({ length: count }, (_, index) => {
    sequence.at(index).integer();
    return sequence.at(index).contents();
  });
}

function rsaPublicKey(n: Uint8Array | undefined, e: Uint8Array | undefined): RsaPublicKey {
  if (!n || !e) throw new InvalidKeyError('the RSA key lacks its modulus or exponent');
  const modulus = unsigned(n);
  const modulusBits = modulus.length === 0 ? 0 : (modulus.length - 1) * 8 + bitLength(modulus[0] ?? 0);
  if (modulusBits < minimumModulusBits) {
    throw new InvalidKeyError(
      `RSA keys must have at least ${minimumModulusBits} bits, this one has ${modulusBits}`,
    );
  }
  checkPublicExponent(unsigned(e).reduce((value, byte) => (value << 8n) | BigInt(byte), 0n));
  const rsaKey = encodeASN1(new ASN1EncodableSequence([integer(n), integer(e)]));
  const spki = encodeASN1(
    new ASN1EncodableSequence([
      new ASN1EncodableSequence([
        new ASN1ObjectIdentifier(encodeObjectIdentifier(rsaEncryption)),
        new ASN1Null(),
      ]),
      new ASN1BitString(rsaKey, rsaKey.length * 8),
    ]),
  );
  return {
    kid: spkiKeyId(spki),
    spki,
    pem: encodePem('PUBLIC KEY', spki),
    modulusBits,
    jwk: Object.freeze({ kty: 'RSA', n: base64url.encode(modulus), e: base64url.encode(unsigned(e)) }),
  };
}

function integer(contents: Uint8Array): ASN1Value {
  return new ASN1Value(ASN1Class.Universal, ASN1Form.Primitive, 2, contents);
}

function encodeInteger(contents: Uint8Array | undefined): string {
  if (!contents) throw new InvalidKeyError('the RSA private key is incomplete');
  return base64url.encode(unsigned(contents));
}

// A positive DER INTEGER carries a leading zero byte when its top bit is set; JWK values do not.
function unsigned(contents: Uint8Array): Uint8Array {
  let start = 0;
  while (start < contents.length - 1 && contents[start] === 0) start++;
  return contents.subarray(start);
}

function bitLength(byte: number): number {
  return byte === 0 ? 0 : 32 - Math.clz32(byte);
}
