import { createPrivateKey, type KeyObject } from 'node:crypto';
import { InvalidP12Error, readIosP12 } from '#shared/domain/ios-p12';

export { InvalidP12Error } from '#shared/domain/ios-p12';

/** APNs with a push certificate: TLS client authentication, the topic being the certificate's UID. */
export interface ApnsCertificateCredentials {
  readonly kind: 'certificate';
  /** The app's bundle id: the `apns-topic` of every push. */
  readonly topic: string;
  /** PKCS#8 PEM. */
  readonly keyPem: string;
  readonly certificatePem: string;
}

/** APNs with a token signing key (.p8): an ES256 JWT per connection, from the key's id and the team's. */
export interface ApnsTokenCredentials {
  readonly kind: 'token';
  readonly topic: string;
  /** The key's 10-character id, the JWT's `kid`. */
  readonly keyId: string;
  /** The developer team's 10-character id, the JWT's `iss`. */
  readonly teamId: string;
  /** PKCS#8 PEM of an EC P-256 private key. */
  readonly keyPem: string;
}

export type ApnsCredentials = ApnsCertificateCredentials | ApnsTokenCredentials;

/** A push certificate's credentials and what a directory shows of it. */
export interface ApnsCertificate extends ApnsCertificateCredentials {
  /** SHA-256, upper-case colon hex, as `iosCertificateFingerprint` gives it. */
  readonly fingerprint: string;
  /** ISO 8601 UTC. */
  readonly notAfter: string;
}

/**
 * What a readable `ios_p12` is good for: always a fingerprint to show (LaunchKey accepted any password-free PKCS#12),
 * and either push credentials or why it cannot push.
 */
export type IosP12Inspection =
  | { readonly usable: true; readonly fingerprint: string; readonly credentials: ApnsCertificate }
  | { readonly usable: false; readonly fingerprint: string; readonly reason: string };

/** Bundle ids: letters, digits, hyphens and periods; topics may add Apple's suffixes (`.voip`, `.complication`). */
const bundleId = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;
const maxTopicLength = 255;
const appleId = /^[A-Z0-9]{10}$/;
/** A .p8 is about 250 characters; anything much longer is not one, and is refused before it is parsed. */
const maxKeyPemLength = 4096;
/** The subject's userId attribute (RFC 4519), as node's multi-line subject spells it, control characters escaped. */
const uidLine = /^UID=(.*)$/gm;

/**
 * Reads an `ios_p12` as PATCH directories does (refusing only what `iosCertificateFingerprint` refuses) and says
 * whether it can push: a certificate without a UID is not an Apple push certificate, a key must match its
 * certificate, and the certificate must be valid at `now`.
 */
export function inspectIosP12(p12Base64: string, now: Date = new Date()): IosP12Inspection {
  const { certificate, privateKey } = readIosP12(p12Base64);
  const fingerprint = certificate.fingerprint256;
  const unusable = (reason: string): IosP12Inspection => ({ usable: false, fingerprint, reason });
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: Buffer.from(privateKey), format: 'der', type: 'pkcs8' });
  } catch {
    return unusable('holds a private key that cannot be read');
  }
  if (key.type !== 'private' || !certificate.checkPrivateKey(key)) {
    return unusable('holds a private key that does not match its certificate');
  }
  const uids = [...certificate.subject.matchAll(uidLine)].map((match) => match[1] ?? '');
  const [topic] = uids;
  if (topic === undefined)
    return unusable('holds a certificate without a UID (not an Apple push certificate)');
  if (uids.length > 1) return unusable('holds a certificate with more than one UID');
  if (topic.length > maxTopicLength || !bundleId.test(topic)) {
    return unusable("holds a certificate whose UID is not an app's bundle id");
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore) return unusable(`holds a certificate not valid before ${notBefore.toISOString()}`);
  if (now > notAfter) return unusable(`holds a certificate that expired on ${notAfter.toISOString()}`);
  return {
    usable: true,
    fingerprint,
    credentials: {
      kind: 'certificate',
      topic,
      keyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
      certificatePem: certificate.toString(),
      fingerprint,
      notAfter: notAfter.toISOString(),
    },
  };
}

/**
 * The APNs credentials of an Apple push certificate in a password-free PKCS#12 given as base64: its key and
 * certificate as PEM, the topic from the certificate's UID (the app's bundle id). A file that cannot push — no UID,
 * a key not matching the certificate, a certificate expired or not yet valid at `now` — is refused with an
 * `InvalidP12Error` whose message completes `ios_p12: …`, as is anything `iosCertificateFingerprint` refuses.
 */
export function apnsCertificateCredentials(p12Base64: string, now: Date = new Date()): ApnsCertificate {
  const inspection = inspectIosP12(p12Base64, now);
  if (!inspection.usable) throw new InvalidP12Error(inspection.reason);
  return inspection.credentials;
}

/** Token-based APNs credentials refused; the message says which part and why. */
export class InvalidApnsCredentialsError extends Error {
  override readonly name = 'InvalidApnsCredentialsError';
}

/**
 * Token-based APNs credentials, checked: `keyPem` the contents of the .p8 Apple lets a team download once (an EC
 * P-256 private key, PKCS#8 PEM), `keyId` its 10-character id, `teamId` the team's, `topic` the app's bundle id.
 * Refusals are `InvalidApnsCredentialsError`s.
 */
export function apnsTokenCredentials(input: {
  readonly keyPem: string;
  readonly keyId: string;
  readonly teamId: string;
  readonly topic: string;
}): ApnsTokenCredentials {
  if (!appleId.test(input.keyId)) {
    throw new InvalidApnsCredentialsError('the key id must be 10 upper-case letters or digits');
  }
  if (!appleId.test(input.teamId)) {
    throw new InvalidApnsCredentialsError('the team id must be 10 upper-case letters or digits');
  }
  if (input.topic.length > maxTopicLength || !bundleId.test(input.topic)) {
    throw new InvalidApnsCredentialsError("the topic must be the app's bundle id, such as com.example.app");
  }
  if (input.keyPem.length > maxKeyPemLength || !input.keyPem.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new InvalidApnsCredentialsError('the key must be the contents of a .p8 file (PKCS#8 PEM)');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: input.keyPem, format: 'pem' });
  } catch {
    throw new InvalidApnsCredentialsError('the key must be the contents of a .p8 file (PKCS#8 PEM)');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new InvalidApnsCredentialsError('the key must be an EC P-256 private key, as Apple issues them');
  }
  return {
    kind: 'token',
    topic: input.topic,
    keyId: input.keyId,
    teamId: input.teamId,
    keyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}
