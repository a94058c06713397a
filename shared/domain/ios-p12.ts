import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

export class InvalidP12Error extends Error {
  override readonly name = 'InvalidP12Error';
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The SHA-256 fingerprint, upper-case colon hex, of the certificate in a password-free PKCS#12 given as base64 (the
 * Python SDK wraps it every 76 characters, so whitespace is ignored). The P12 itself is not kept: nothing in the
 * service pushes to APNs, so the fingerprint is all there is to show.
 */
export function iosCertificateFingerprint(p12Base64: string): string {
  const compact = p12Base64.replace(/\s+/g, '');
  if (compact.length === 0 || !base64.test(compact)) throw new InvalidP12Error('ios_p12 must be base64');
  let bags: { certificates: forge.pkcs12.Bag[]; keys: forge.pkcs12.Bag[] };
  try {
    const asn1 = forge.asn1.fromDer(
      forge.util.createBuffer(Buffer.from(compact, 'base64').toString('binary')),
    );
    const p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, '');
    const ofType = (bagType: string | undefined) =>
      bagType === undefined ? [] : (p12.getBags({ bagType })[bagType] ?? []);
    bags = {
      certificates: ofType(forge.pki.oids.certBag),
      keys: [...ofType(forge.pki.oids.pkcs8ShroudedKeyBag), ...ofType(forge.pki.oids.keyBag)],
    };
  } catch (cause) {
    throw new InvalidP12Error('ios_p12 is not a password-free PKCS#12 file', { cause });
  }
  if (bags.keys.length === 0) throw new InvalidP12Error('ios_p12 holds no private key');
  // The push certificate is the one paired with the key; a chain may carry CA certificates besides it.
  const keyId = localKeyId(bags.keys[0]);
  const paired = bags.certificates.find((bag) => keyId !== undefined && localKeyId(bag) === keyId);
  const certificate = (paired ?? bags.certificates[0])?.cert;
  if (!certificate) throw new InvalidP12Error('ios_p12 holds no certificate');
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary');
  return new X509Certificate(der).fingerprint256;
}

/** A bag's localKeyId attribute, which pairs a certificate with its key; forge types bag attributes as any. */
function localKeyId(bag: forge.pkcs12.Bag | undefined): string | undefined {
  const attributes = bag?.attributes as Record<string, unknown> | undefined;
  const ids = attributes?.localKeyId;
  return Array.isArray(ids) && typeof ids[0] === 'string' ? ids[0] : undefined;
}
