import { X509Certificate } from 'node:crypto';
import { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';
import { readPkcs12 } from '#shared/domain/pkcs12/pfx';

export { InvalidP12Error } from '#shared/domain/pkcs12/invalid-p12-error';

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The SHA-256 fingerprint, upper-case colon hex, of the certificate paired with the private key in a password-free
 * PKCS#12 given as base64 (the Python SDK wraps it every 76 characters, so whitespace is ignored). The P12 itself is
 * not kept: nothing in the service pushes to APNs, so the fingerprint is all there is to show. Refusals are
 * `InvalidP12Error`s whose message completes `ios_p12: …`.
 */
export function iosCertificateFingerprint(p12Base64: string): string {
  const compact = p12Base64.replace(/\s+/g, '');
  if (compact.length === 0 || !base64.test(compact)) throw new InvalidP12Error('is not base64');
  const { certificates, keyIds } = readPkcs12(Buffer.from(compact, 'base64'));
  if (keyIds.length === 0) throw new InvalidP12Error('holds no private key');
  // The push certificate is the one sharing the key's localKeyId; a chain may carry CA certificates besides it.
  const keyId = keyIds[0];
  const paired = certificates.find((certificate) => keyId !== undefined && certificate.localKeyId === keyId);
  const certificate = paired ?? certificates[0];
  if (!certificate) throw new InvalidP12Error('holds no certificate');
  try {
    return new X509Certificate(certificate.der).fingerprint256;
  } catch (cause) {
    throw new InvalidP12Error('holds a certificate that is not X.509', { cause });
  }
}
