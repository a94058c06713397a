import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  ASN1Class,
  type ASN1Encodable,
  ASN1EncodableSequence,
  ASN1EncodableSet,
  ASN1Form,
  ASN1Integer,
  ASN1ObjectIdentifier,
  ASN1OctetString,
  encodeASN1,
  encodeObjectIdentifier,
  parseASN1NoLeftoverBytes,
} from '@oslojs/asn1';
import { describe, expect, it } from 'vitest';
import {
  apnsCertificateCredentials,
  apnsTokenCredentials,
  InvalidApnsCredentialsError,
  InvalidP12Error,
  inspectIosP12,
} from '#shared/domain/apns-credentials';
import { iosCertificateFingerprint } from '#shared/domain/ios-p12';

/** How each fixture was made: test/fixtures/apns-fixtures.md and test/fixtures/p12-fixtures.md. */
const fixture = (path: string) => readFileSync(new URL(`../../../fixtures/${path}`, import.meta.url), 'utf8');
const p12 = (name: string) => fixture(`${name}.p12.base64`).trim();

/** `openssl x509 -fingerprint -sha256` of test/fixtures/apns/push.pem. */
const pushFingerprint =
  '3B:65:88:BC:BA:B5:BE:ED:47:7C:4E:F7:BD:9A:AB:C5:F5:AB:9F:3F:40:40:BA:AD:9C:E2:BB:02:9E:CA:5B:FA';
const pushPem = fixture('apns/push.pem');

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidP12Error || error instanceof InvalidApnsCredentialsError)
      return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

// A PFX assembled by hand (RFC 7292): one unencrypted content of the given bags, no MAC.
const der = (value: ASN1Encodable) => encodeASN1(value);
const oid = (dotted: string) => new ASN1ObjectIdentifier(encodeObjectIdentifier(dotted));
const explicit0 = (value: ASN1Encodable) => ({
  class: ASN1Class.ContextSpecific,
  form: ASN1Form.Constructed,
  tag: 0,
  contents: () => der(value),
});
const keyIdAttribute = new ASN1EncodableSet([
  new ASN1EncodableSequence([
    oid('1.2.840.113549.1.9.21'),
    new ASN1EncodableSet([new ASN1OctetString(Uint8Array.of(1, 2, 3, 4))]),
  ]),
]);
/** A shrouded key bag's value that no password opens: PBES2 (PBKDF2, AES-256-CBC) over bytes that are no key. */
const undecryptableKey = new ASN1EncodableSequence([
  new ASN1EncodableSequence([
    oid('1.2.840.113549.1.5.13'),
    new ASN1EncodableSequence([
      new ASN1EncodableSequence([
        oid('1.2.840.113549.1.5.12'),
        new ASN1EncodableSequence([new ASN1OctetString(new Uint8Array(8)), new ASN1Integer(1n)]),
      ]),
      new ASN1EncodableSequence([oid('2.16.840.1.101.3.4.1.42'), new ASN1OctetString(new Uint8Array(16))]),
    ]),
  ]),
  new ASN1OctetString(new Uint8Array(32).fill(7)),
]);

function handMadePfx(certificateDer: Uint8Array, keyPkcs8: Uint8Array | 'undecryptable'): string {
  const certBag = new ASN1EncodableSequence([
    oid('1.2.840.113549.1.12.10.1.3'),
    explicit0(
      new ASN1EncodableSequence([
        oid('1.2.840.113549.1.9.22.1'),
        explicit0(new ASN1OctetString(certificateDer)),
      ]),
    ),
    keyIdAttribute,
  ]);
  const keyBag =
    keyPkcs8 === 'undecryptable'
      ? new ASN1EncodableSequence([
          oid('1.2.840.113549.1.12.10.1.2'),
          explicit0(undecryptableKey),
          keyIdAttribute,
        ])
      : new ASN1EncodableSequence([
          oid('1.2.840.113549.1.12.10.1.1'),
          explicit0(parseASN1NoLeftoverBytes(keyPkcs8)),
          keyIdAttribute,
        ]);
  const data = (value: ASN1Encodable) =>
    new ASN1EncodableSequence([oid('1.2.840.113549.1.7.1'), explicit0(new ASN1OctetString(der(value)))]);
  const authenticatedSafe = new ASN1EncodableSequence([data(new ASN1EncodableSequence([certBag, keyBag]))]);
  return Buffer.from(der(new ASN1EncodableSequence([new ASN1Integer(3n), data(authenticatedSafe)]))).toString(
    'base64',
  );
}

describe('the credentials of an Apple push certificate', () => {
  it.each([
    ["OpenSSL 3's default layout (PBES2, AES-256)", 'apns/push'],
    ["Keychain's layout (RC2-40 certificates, 3DES key)", 'apns/push-legacy'],
    ['an unencrypted key bag', 'apns/push-plain-key'],
  ])('reads %s: the topic from the UID, the key as PKCS#8 PEM', (_, name) => {
    const credentials = apnsCertificateCredentials(p12(name));
    expect(credentials).toMatchObject({
      kind: 'certificate',
      topic: 'com.example.authenticator',
      fingerprint: pushFingerprint,
      notAfter: '2126-11-01T03:10:31.000Z',
    });
    expect(credentials.fingerprint).toBe(iosCertificateFingerprint(p12(name)));
    expect(credentials.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(new X509Certificate(credentials.certificatePem).raw).toEqual(new X509Certificate(pushPem).raw);
    expect(new X509Certificate(pushPem).checkPrivateKey(createPrivateKey(credentials.keyPem))).toBe(true);
  });

  it('gives the same key whichever way the file encrypts it', () => {
    const keys = ['apns/push', 'apns/push-legacy', 'apns/push-plain-key'].map(
      (name) => apnsCertificateCredentials(p12(name)).keyPem,
    );
    expect(new Set(keys).size).toBe(1);
  });

  it('is inspected as usable, with the fingerprint PATCH directories shows', () => {
    const inspection = inspectIosP12(p12('apns/push'));
    expect(inspection).toMatchObject({ usable: true, fingerprint: pushFingerprint });
  });
});

describe('the PKCS#12 files PATCH directories accepts', () => {
  it.each([
    'openssl-pbes2-aes256',
    'openssl-sha1-3des',
    'openssl-legacy-rc2-40',
    'openssl-unencrypted-certificates',
    'openssl-no-mac-sha1-3des',
    'chain-key-certificate-second',
  ])('%s: its key decrypts and matches, its UID is the topic', (name) => {
    expect(inspectIosP12(p12(name))).toMatchObject({
      usable: true,
      fingerprint: iosCertificateFingerprint(p12(name)),
      credentials: { topic: 'com.example.test' },
    });
  });
});

describe('a PKCS#12 that cannot push', () => {
  it("the LaunchKey SDK's test file is still accepted with its fingerprint, but has no UID to push to", () => {
    const reason = 'holds a certificate without a UID (not an Apple push certificate)';
    expect(inspectIosP12(p12('alpha'))).toEqual({
      usable: false,
      fingerprint: iosCertificateFingerprint(p12('alpha')),
      reason,
    });
    expect(refusal(() => apnsCertificateCredentials(p12('alpha')))).toBe(reason);
  });

  it('an expired certificate keeps its fingerprint and says when it expired', () => {
    const reason = 'holds a certificate that expired on 2016-01-01T00:00:00.000Z';
    expect(inspectIosP12(p12('apns/push-expired'))).toMatchObject({ usable: false, reason });
    expect(refusal(() => apnsCertificateCredentials(p12('apns/push-expired')))).toBe(reason);
    expect(apnsCertificateCredentials(p12('apns/push-expired'), new Date('2015-06-01')).notAfter).toBe(
      '2016-01-01T00:00:00.000Z',
    );
  });

  it('a certificate with two UIDs names no one topic', () => {
    expect(refusal(() => apnsCertificateCredentials(p12('apns/push-two-uids')))).toBe(
      'holds a certificate with more than one UID',
    );
  });

  it('a certificate not yet valid says from when', () => {
    expect(refusal(() => apnsCertificateCredentials(p12('apns/push-expired'), new Date('2014-01-01')))).toBe(
      'holds a certificate not valid before 2015-01-01T00:00:00.000Z',
    );
  });

  it('a key that does not match its certificate', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const pfx = handMadePfx(new X509Certificate(pushPem).raw, other.export({ format: 'der', type: 'pkcs8' }));
    expect(inspectIosP12(pfx)).toEqual({
      usable: false,
      fingerprint: pushFingerprint,
      reason: 'holds a private key that does not match its certificate',
    });
  });

  it('the same hand-made file with the right key pushes: the key bag is read as it is', () => {
    const key = createPrivateKey(apnsCertificateCredentials(p12('apns/push')).keyPem);
    const pfx = handMadePfx(new X509Certificate(pushPem).raw, key.export({ format: 'der', type: 'pkcs8' }));
    expect(apnsCertificateCredentials(pfx).topic).toBe('com.example.authenticator');
  });

  it('a shrouded key that does not decrypt is refused, as a file with a password', () => {
    const pfx = handMadePfx(new X509Certificate(pushPem).raw, 'undecryptable');
    const message = 'holds a private key that does not decrypt without a password';
    expect(refusal(() => inspectIosP12(pfx))).toBe(message);
    expect(refusal(() => iosCertificateFingerprint(pfx))).toBe(message);
  });

  it.each([
    ['not base64', '!!!', 'is not base64'],
    ['no key', p12('openssl-no-key'), 'holds no private key'],
    [
      'a password',
      p12('openssl-with-password'),
      'the MAC does not match: the file is damaged or has a password',
    ],
  ])('refuses %s as PATCH directories does', (_, file, message) => {
    expect(refusal(() => inspectIosP12(file))).toBe(message);
    expect(refusal(() => apnsCertificateCredentials(file))).toBe(message);
  });
});

describe('token-based credentials', () => {
  const keyPem = fixture('apns/AuthKey_ABC123DEFG.p8');
  const valid = { keyPem, keyId: 'ABC123DEFG', teamId: 'DEF123GHIJ', topic: 'com.example.authenticator' };

  it('accepts a .p8 with its key id, team id and bundle id', () => {
    const credentials = apnsTokenCredentials(valid);
    expect(credentials).toMatchObject({
      kind: 'token',
      keyId: 'ABC123DEFG',
      teamId: 'DEF123GHIJ',
      topic: 'com.example.authenticator',
    });
    expect(createPrivateKey(credentials.keyPem).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const notAp8 = 'the key must be the contents of a .p8 file (PKCS#8 PEM)';

  it.each([
    ['a lower-case key id', { keyId: 'abc123defg' }, 'the key id must be 10 upper-case letters or digits'],
    ['a short team id', { teamId: 'DEF123' }, 'the team id must be 10 upper-case letters or digits'],
    [
      'a topic that is no bundle id',
      { topic: 'com example' },
      "the topic must be the app's bundle id, such as com.example.app",
    ],
    ['a P-384 key', { keyPem: p384 }, 'the key must be an EC P-256 private key, as Apple issues them'],
    ['an RSA key', { keyPem: rsa }, 'the key must be an EC P-256 private key, as Apple issues them'],
    ['a public key', { keyPem: fixture('apns/server-ca.pem') }, notAp8],
    ['a truncated key', { keyPem: `${keyPem.slice(0, 80)}\n-----END PRIVATE KEY-----\n` }, notAp8],
    ['an oversized key', { keyPem: `${keyPem}${' '.repeat(5000)}` }, notAp8],
  ])('refuses %s', (_, change, message) => {
    expect(refusal(() => apnsTokenCredentials({ ...valid, ...change }))).toBe(message);
  });
});
