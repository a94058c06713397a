import { createCipheriv, createHmac, hash, pbkdf2Sync } from 'node:crypto';
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
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidP12Error, iosCertificateFingerprint } from '#shared/domain/ios-p12';

// Every key derivation goes through these: a refusal that leaves them uncalled derived nothing.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    hash: vi.fn(crypto.hash),
    pbkdf2Sync: vi.fn(crypto.pbkdf2Sync),
    createHmac: vi.fn(crypto.createHmac),
  };
});

beforeEach(() => {
  vi.clearAllMocks();
});

/** How each fixture was made: test/fixtures/p12-fixtures.md. */
const fixture = (name: string) =>
  readFileSync(new URL(`../../../fixtures/${name}.p12.base64`, import.meta.url), 'utf8').trim();

const alphaFingerprint =
  '7A:31:98:AD:89:68:19:63:39:75:34:A2:E6:9A:00:4E:42:DB:E0:33:7C:14:57:5D:C0:E5:90:B9:36:DD:BB:FA';
/** `openssl x509 -fingerprint -sha256` of the push certificate in the OpenSSL-made fixtures. */
const pushFingerprint =
  'B0:5E:F9:4A:B3:7B:AB:AE:7A:30:ED:7F:B3:B1:A3:EF:B1:E2:05:C8:D0:FC:D6:0A:81:3F:CD:FF:E3:7F:9F:0E';
/** The same of its CA's certificate, which travels with it in the chain fixture. */
const caFingerprint =
  '1E:33:F4:07:00:3F:B5:A0:5C:EB:AC:08:57:2E:84:18:B8:08:58:C1:0F:BC:86:1C:B9:AA:C6:38:1D:00:B6:E8';

function refusal(p12: string): string {
  try {
    iosCertificateFingerprint(p12);
  } catch (error) {
    if (error instanceof InvalidP12Error) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

function derivations(): number {
  return [hash, pbkdf2Sync, createHmac].reduce((calls, spy) => calls + vi.mocked(spy).mock.calls.length, 0);
}

describe('the fingerprint of the certificate paired with the private key', () => {
  it.each([
    [
      "the LaunchKey Java SDK's test file: RC2-40 certificates, 3DES key, SHA-1 MAC",
      'alpha',
      alphaFingerprint,
    ],
    [
      "OpenSSL 3's default: PBES2 with PBKDF2-HMAC-SHA256 and AES-256-CBC",
      'openssl-pbes2-aes256',
      pushFingerprint,
    ],
    ['3DES certificates and key with a SHA-1 MAC', 'openssl-sha1-3des', pushFingerprint],
    [
      "Keychain's layout: RC2-40 certificates and a 3DES key (openssl -legacy)",
      'openssl-legacy-rc2-40',
      pushFingerprint,
    ],
    ['certificates not encrypted at all', 'openssl-unencrypted-certificates', pushFingerprint],
    [
      'no MAC, so either encoding of the empty password may be the one',
      'openssl-no-mac-sha1-3des',
      pushFingerprint,
    ],
    ['every iteration count at the cap of 10 000', 'openssl-10000-iterations', pushFingerprint],
    [
      "the key's certificate after its CA's, with a MAC made under the other empty password",
      'chain-key-certificate-second',
      pushFingerprint,
    ],
  ])('reads %s', (_, name, fingerprint) => {
    expect(iosCertificateFingerprint(fixture(name))).toBe(fingerprint);
  });

  it('pairs by the localKeyId, not by position: the CA certificate comes first in the chain fixture', () => {
    expect(iosCertificateFingerprint(fixture('chain-key-certificate-second'))).not.toBe(caFingerprint);
  });

  it('ignores whitespace, as the Python SDK wraps the base64 every 76 characters', () => {
    const wrapped = `${fixture('openssl-legacy-rc2-40')
      .match(/.{1,76}/g)
      ?.join('\n')}\n`;
    expect(iosCertificateFingerprint(wrapped)).toBe(pushFingerprint);
  });

  it('derives keys through the functions watched below, so their silence there means something', () => {
    iosCertificateFingerprint(fixture('openssl-pbes2-aes256'));
    expect(vi.mocked(pbkdf2Sync)).toHaveBeenCalled();
    expect(vi.mocked(createHmac)).toHaveBeenCalled();
    expect(vi.mocked(hash)).toHaveBeenCalled();
  });
});

describe('refusals', () => {
  it.each([
    ['text that is not base64', 'not base64!', 'is not base64'],
    ['nothing but whitespace', ' \n ', 'is not base64'],
    [
      'base64 of something else',
      Buffer.from('hello world').toString('base64'),
      'is not a password-free PKCS#12 file',
    ],
    [
      'a file with a password',
      fixture('openssl-with-password'),
      'the MAC does not match: the file is damaged or has a password',
    ],
    [
      'a file with a password and no MAC',
      fixture('openssl-no-mac-with-password'),
      'is not a password-free PKCS#12 file',
    ],
    ['a file without a private key', fixture('openssl-no-key'), 'holds no private key'],
    ['a file without a certificate', fixture('openssl-no-certificate'), 'holds no certificate'],
  ])('refuses %s', (_, p12, message) => {
    expect(refusal(p12)).toBe(message);
  });

  it('refuses a file changed after its MAC was computed', () => {
    const der = Buffer.from(fixture('openssl-unencrypted-certificates'), 'base64');
    // The certificates are in the clear here: one letter of the subject changes, and the certificate still parses.
    const at = der.indexOf('com.example.test');
    expect(at).toBeGreaterThan(0);
    der[at] = 'C'.charCodeAt(0);
    expect(refusal(der.toString('base64'))).toBe(
      'the MAC does not match: the file is damaged or has a password',
    );
  });
});

describe('the iteration counts, each refused above 10 000 before any key derivation', () => {
  it.each([
    [
      'every count at 3 000 000, the MAC read first',
      'openssl-3000000-iterations',
      "the MAC's iteration count 3000000",
    ],
    ["the MAC's", 'openssl-mac-3000000-iterations', "the MAC's iteration count 3000000"],
    ['one past the cap', 'openssl-10001-iterations', "the MAC's iteration count 10001"],
    [
      "the certificates' PKCS#12 encryption",
      'openssl-certificates-3des-3000000-iterations',
      "the encrypted data's iteration count 3000000",
    ],
    [
      "the certificates' PBKDF2",
      'openssl-certificates-pbkdf2-3000000-iterations',
      "the encrypted data's PBKDF2 iteration count 3000000",
    ],
    [
      "the key's PKCS#12 encryption",
      'openssl-key-3des-3000000-iterations',
      "the private key's iteration count 3000000",
    ],
    [
      "the key's PBKDF2",
      'openssl-key-pbkdf2-3000000-iterations',
      "the private key's PBKDF2 iteration count 3000000",
    ],
  ])('%s', (_, name, count) => {
    expect(refusal(fixture(name))).toBe(`${count} is above 10000`);
    expect(derivations()).toBe(0);
  });
});

describe('files built here', () => {
  const oid = (dotted: string) => new ASN1ObjectIdentifier(encodeObjectIdentifier(dotted));
  const sequence = (...elements: ASN1Encodable[]) => new ASN1EncodableSequence(elements);
  const set = (...elements: ASN1Encodable[]) => new ASN1EncodableSet(elements);
  const octets = (bytes: Uint8Array) => new ASN1OctetString(bytes);
  const integer = (value: number) => new ASN1Integer(BigInt(value));
  const tagged = (form: ASN1Form, bytes: () => Uint8Array): ASN1Encodable => ({
    class: ASN1Class.ContextSpecific,
    form,
    tag: 0,
    contents: bytes,
  });
  const explicit = (inner: ASN1Encodable) => tagged(ASN1Form.Constructed, () => encodeASN1(inner));
  const dataType = oid('1.2.840.113549.1.7.1');
  /** A ContentInfo of type data holding a SEQUENCE of these: the AuthenticatedSafe's contents or a SafeContents' bags. */
  const data = (...elements: ASN1Encodable[]) =>
    sequence(dataType, explicit(octets(encodeASN1(sequence(...elements)))));
  const der = (...elements: ASN1Encodable[]) =>
    Buffer.from(encodeASN1(sequence(...elements))).toString('base64');
  /** A MAC-less PFX: nothing in it needs a key derived unless its contents are encrypted. */
  const pfx = (...contents: ASN1Encodable[]) => der(integer(3), data(...contents));
  const attribute = (type: string, value: ASN1Encodable) => sequence(oid(type), set(value));
  const friendlyName = attribute('1.2.840.113549.1.9.20', octets(Uint8Array.of(0, 0x41)));
  const withAttributes = (attributes: ASN1Encodable[]) => (attributes.length ? [set(...attributes)] : []);
  const keyBag = (...attributes: ASN1Encodable[]) =>
    sequence(oid('1.2.840.113549.1.12.10.1.1'), explicit(sequence()), ...withAttributes(attributes));
  const certBag = (certificate: Uint8Array, ...attributes: ASN1Encodable[]) =>
    sequence(
      oid('1.2.840.113549.1.12.10.1.3'),
      explicit(sequence(oid('1.2.840.113549.1.9.22.1'), explicit(octets(certificate)))),
      ...withAttributes(attributes),
    );
  const secretBag = sequence(
    oid('1.2.840.113549.1.12.10.1.5'),
    explicit(sequence(oid('1.2.3.4'), explicit(octets(Uint8Array.of(1))))),
  );
  const safeContentsBag = (...bags: ASN1Encodable[]) =>
    sequence(oid('1.2.840.113549.1.12.10.1.6'), explicit(sequence(...bags)));
  const encryptedData = (algorithm: ASN1Encodable, ciphertext: Uint8Array) =>
    sequence(
      oid('1.2.840.113549.1.7.6'),
      explicit(
        sequence(
          integer(0),
          sequence(
            dataType,
            algorithm,
            tagged(ASN1Form.Primitive, () => ciphertext),
          ),
        ),
      ),
    );
  const salt = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8);
  const iv = new Uint8Array(16).fill(9);
  /** PBES2 with PBKDF2, 2 048 iterations and AES-256-CBC; `optional` are PBKDF2's keyLength and prf. */
  const pbes2 = (...optional: ASN1Encodable[]) =>
    sequence(
      oid('1.2.840.113549.1.5.13'),
      sequence(
        sequence(oid('1.2.840.113549.1.5.12'), sequence(octets(salt), integer(2048), ...optional)),
        sequence(oid('2.16.840.1.101.3.4.1.42'), octets(iv)),
      ),
    );
  /** The push certificate, out of the OpenSSL fixture whose certificates are in the clear. */
  const pushCertificate = (() => {
    const inside = (value: ReturnType<typeof parseASN1NoLeftoverBytes>) =>
      parseASN1NoLeftoverBytes(value.contents());
    const pfxValue = parseASN1NoLeftoverBytes(
      Buffer.from(fixture('openssl-unencrypted-certificates'), 'base64'),
    );
    const safe = inside(pfxValue.sequence().at(1).sequence().at(1)).octetString().value;
    const certificates = inside(
      parseASN1NoLeftoverBytes(safe).sequence().at(0).sequence().at(1),
    ).octetString().value;
    const bag = inside(parseASN1NoLeftoverBytes(certificates).sequence().at(0).sequence().at(1));
    return inside(bag.sequence().at(1)).octetString().value;
  })();

  it('pairs the first certificate with a key when neither has a localKeyId', () => {
    expect(
      iosCertificateFingerprint(pfx(data(keyBag(friendlyName), certBag(pushCertificate, friendlyName)))),
    ).toBe(pushFingerprint);
  });

  it("reads PBES2 with PBKDF2's PRF left to its HMAC-SHA1 default and its key length stated", () => {
    const key = pbkdf2Sync(new Uint8Array(0), salt, 2048, 32, 'sha1');
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const bags = encodeASN1(sequence(certBag(pushCertificate)));
    const ciphertext = Buffer.concat([cipher.update(bags), cipher.final()]);
    expect(
      iosCertificateFingerprint(pfx(data(keyBag()), encryptedData(pbes2(integer(32)), ciphertext))),
    ).toBe(pushFingerprint);
  });

  it.each([
    [
      'contents signed with a public key',
      der(integer(3), sequence(oid('1.2.840.113549.1.7.2'), explicit(sequence()))),
      'is signed with a public key, which is not supported',
    ],
    [
      'contents encrypted with a public key',
      pfx(sequence(oid('1.2.840.113549.1.7.3'), explicit(sequence()))),
      'holds contents encrypted with a public key, which is not supported',
    ],
    [
      'RC4',
      pfx(encryptedData(sequence(oid('1.2.840.113549.1.12.1.1'), sequence(octets(salt), integer(2048))), iv)),
      "the encrypted data's encryption algorithm is not supported",
    ],
    [
      'PBES2 stating a key length its cipher does not have',
      pfx(encryptedData(pbes2(integer(16)), iv)),
      "the encrypted data's encryption parameters do not fit its cipher",
    ],
    [
      'an MD5 MAC',
      der(
        integer(3),
        data(),
        sequence(
          sequence(sequence(oid('1.2.840.113549.2.5')), octets(new Uint8Array(16))),
          octets(salt),
          integer(1),
        ),
      ),
      "the MAC's algorithm is not supported",
    ],
    [
      'a MAC iterated 0 times',
      der(
        integer(3),
        data(),
        sequence(
          sequence(sequence(oid('1.3.14.3.2.26')), octets(new Uint8Array(20))),
          octets(salt),
          integer(0),
        ),
      ),
      "the MAC's iteration count 0 is not positive",
    ],
    [
      'a certificate bag that holds no certificate',
      pfx(data(keyBag(), certBag(Uint8Array.of(1, 2, 3)))),
      'holds a certificate that is not X.509',
    ],
  ])('refuses %s, saying what', (_, p12, message) => {
    expect(refusal(p12)).toBe(message);
    expect(derivations()).toBe(0);
  });

  it('refuses more than 4 contents', () => {
    expect(refusal(pfx(...Array.from({ length: 5 }, () => data())))).toBe('holds more than 4 contents');
  });

  it('refuses more than 16 bags, counted across contents', () => {
    const bags = (count: number) => Array.from({ length: count }, () => secretBag);
    expect(refusal(pfx(data(...bags(16))))).toBe('holds no private key');
    expect(refusal(pfx(data(...bags(17))))).toBe('holds more than 16 bags');
    expect(refusal(pfx(data(...bags(9)), data(...bags(8))))).toBe('holds more than 16 bags');
  });

  const shroudedKeyBag = (algorithm: ASN1Encodable) =>
    sequence(oid('1.2.840.113549.1.12.10.1.2'), explicit(sequence(algorithm, octets(iv))));
  /** pbeWithSHAAnd3-KeyTripleDES-CBC at the iteration cap: two derivations for each password encoding tried. */
  const tripleDes = sequence(oid('1.2.840.113549.1.12.1.3'), sequence(octets(salt), integer(10_000)));

  it('refuses more than 2 private keys before any key derivation', () => {
    const keys = (count: number) => Array.from({ length: count }, () => shroudedKeyBag(pbes2()));
    expect(refusal(pfx(data(...keys(3))))).toBe('holds more than 2 private keys');
    expect(refusal(pfx(data(keyBag(), ...keys(1)), data(...keys(1))))).toBe('holds more than 2 private keys');
    expect(derivations()).toBe(0);
  });

  it('refuses a file needing more than 8 key derivations at worst before the first', () => {
    const contents = Array.from({ length: 3 }, () => encryptedData(tripleDes, iv));
    expect(refusal(pfx(...contents))).toBe('needs up to 12 key derivations to read, more than 8');
    expect(
      refusal(pfx(data(shroudedKeyBag(tripleDes), shroudedKeyBag(tripleDes)), contents[0] as ASN1Encodable)),
    ).toBe('needs up to 12 key derivations to read, more than 8');
    expect(derivations()).toBe(0);
  });

  it('counts the keys found inside encrypted data before it decrypts any key', () => {
    const key = pbkdf2Sync(new Uint8Array(0), salt, 2048, 32, 'sha1');
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const bags = encodeASN1(sequence(shroudedKeyBag(tripleDes), shroudedKeyBag(tripleDes)));
    const ciphertext = Buffer.concat([cipher.update(bags), cipher.final()]);
    vi.clearAllMocks();
    // No MAC, and PBES2 says nothing of the password's encoding: each key would be tried under both.
    expect(refusal(pfx(encryptedData(pbes2(), ciphertext)))).toBe(
      'needs up to 9 key derivations to read, more than 8',
    );
    expect(derivations()).toBe(1);
  });

  it('walks bags nested one level deep, and refuses deeper nesting', () => {
    expect(refusal(pfx(data(safeContentsBag(secretBag))))).toBe('holds no private key');
    expect(refusal(pfx(data(safeContentsBag(safeContentsBag(secretBag)))))).toBe(
      'nests bags more than 1 level deep',
    );
  });
});
