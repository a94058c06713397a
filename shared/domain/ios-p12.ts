import { X509Certificate } from 'node:crypto';
import { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';
import { readPkcs12 } from '#shared/domain/pkcs12/pfx';

export { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A password-free PKCS#12's certificate and the private key it is paired with. */
export interface IosP12 {
  readonly certificate: X509Certificate;
  /** PKCS#8 DER. */
  readonly privateKey: Uint8Array;
}

/**
 * The certificate paired with the private key in a password-free PKCS#12 given as base64 (the Python SDK wraps it
 * every 76 characters, so whitespace is ignored), and that key. Pairing is by localKeyId, else the first certificate;
 * whether the two match is the caller's question. Refusals are `InvalidP12Error`s whose message completes
 * `ios_p12: …`.
 */
export function readIosP12(p12Base64: string): IosP12 {
  const compact = p12Base64.replace(/\s+/g, '');
  if (compact.length === 0 || !base64.test(compact)) throw new InvalidP12Error('is not base64');
  const { certificates, keys } = readPkcs12(Buffer.from(compact, 'base64'));
  const [key] = keys;
  if (!key) throw new InvalidP12Error('holds no private key');
  // The push certificate is the one sharing the key's localKeyId; a chain may carry CA certificates besides it.
  const paired = certificates.find(
    (certificate) => key.localKeyId !== undefined && certificate.localKeyId === key.localKeyId,
  );
  const certificate = paired ?? certificates[0];
  if (!certificate) throw new InvalidP12Error('holds no certificate');
  try {
    return { certificate: new X509Certificate(certificate.der), privateKey: key.pkcs8 };
  } catch (cause) {
    throw new InvalidP12Error('holds a certificate that is not X.509', { cause });
  }
}

/**
 * The SHA-256 fingerprint, upper-case colon hex, of the certificate paired with the private key in a password-free
 * PKCS#12 given as base64: what a directory shows of its `ios_p12`. Any readable file has one, whether or not it can
 * push (see `inspectIosP12`). Refusals are `InvalidP12Error`s whose message completes `ios_p12: …`.
 */
export function iosCertificateFingerprint(p12Base64: string): string {
  return readIosP12(p12Base64).certificate.fingerprint256;
}
