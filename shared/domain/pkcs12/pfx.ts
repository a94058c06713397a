import { encodeASN1 } from '@oslojs/asn1';
import {
  type ASN1Value,
  elementsOf,
  explicit,
  implicitOctets,
  isOid,
  octets,
  parseDer,
  smallInteger,
} from '#shared/domain/pkcs12/der';
import { type Encryption, readEncryption } from '#shared/domain/pkcs12/encryption';
import { InvalidP12Error, notPasswordFreePkcs12 } from '#shared/domain/pkcs12/invalid-p12-error';
import { checkDerivations, maxBags, maxContents, maxKeyBags, maxNesting } from '#shared/domain/pkcs12/limits';
import { emptyPasswords, readMac } from '#shared/domain/pkcs12/mac';

const oids = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  localKeyId: '1.2.840.113549.1.9.21',
} as const;
/** PrivateKeyInfo's elements, RFC 5958's optional attributes and public key included. */
const privateKeyInfoElements = 5;
/** Attributes on one bag: friendlyName and localKeyId, and a few more from Windows. */
const maxAttributes = 16;

export interface Pkcs12Certificate {
  readonly der: Uint8Array;
  /** Hex of its localKeyId attribute, which pairs it with a private key. */
  readonly localKeyId: string | undefined;
}

export interface Pkcs12Key {
  /** The PrivateKeyInfo (RFC 5208), decrypted: PKCS#8 DER, as node's `createPrivateKey` reads it. */
  readonly pkcs8: Uint8Array;
  /** Hex of its localKeyId attribute, which pairs it with a certificate. */
  readonly localKeyId: string | undefined;
}

export interface Pkcs12Contents {
  readonly certificates: Pkcs12Certificate[];
  /** One entry per private key, its localKeyId's hex if it has one, in the order of `keys`. */
  readonly keyIds: (string | undefined)[];
  readonly keys: Pkcs12Key[];
}

/**
 * The X.509 certificates and the private keys of a password-free PKCS#12 (RFC 7292) in DER, its MAC verified, its
 * shrouded keys decrypted with the empty password the way its encrypted data is. Every iteration count in sight is
 * checked against the cap before the first key derivation (the MAC's, the encrypted data's, the shrouded keys' beside
 * them), and so are the number of private keys and the derivations all of them need at worst; a shrouded key inside
 * encrypted data is checked once that is decrypted, and decrypted last. Anything else
 * malformed, unsupported or needing a password is refused with an `InvalidP12Error`.
 */
export function readPkcs12(der: Uint8Array): Pkcs12Contents {
  try {
    return read(der);
  } catch (error) {
    if (error instanceof InvalidP12Error) throw error;
    throw new InvalidP12Error(notPasswordFreePkcs12, { cause: error });
  }
}

/** A shrouded key bag read and its count checked, waiting until every count in sight is checked to be decrypted. */
interface ShroudedKey {
  readonly encryption: Encryption;
  readonly ciphertext: Uint8Array;
  readonly localKeyId: string | undefined;
}

interface Found {
  readonly certificates: Pkcs12Certificate[];
  /** Plain keys and shrouded ones in file order. */
  readonly keys: (Pkcs12Key | ShroudedKey)[];
  bags: number;
}

function read(der: Uint8Array): Pkcs12Contents {
  const [version, authSafe, macData] = elementsOf(parseDer(der), 3);
  if (smallInteger(version) !== 3n) throw new InvalidP12Error(notPasswordFreePkcs12);
  // Password integrity mode: the AuthenticatedSafe is plain data, which the MAC covers.
  const [authSafeType, authSafeContent] = elementsOf(authSafe, 2);
  if (!isOid(authSafeType, oids.data))
    throw new InvalidP12Error('is signed with a public key, which is not supported');
  const authenticatedSafe = octets(explicit(authSafeContent, 0));
  const mac = macData === undefined ? undefined : readMac(macData);
  const contents = elementsOf(parseDer(authenticatedSafe), maxContents, {
    tooMany: `holds more than ${maxContents} contents`,
  });
  const found: Found = { certificates: [], keys: [], bags: 0 };
  const encrypted: { encryption: Encryption; ciphertext: Uint8Array }[] = [];
  for (const contentInfo of contents) {
    const [type, content] = elementsOf(contentInfo, 2);
    if (isOid(type, oids.data)) collectBags(parseDer(octets(explicit(content, 0))), found, 0);
    else if (isOid(type, oids.encryptedData)) encrypted.push(readEncryptedData(explicit(content, 0)));
    else throw new InvalidP12Error('holds contents encrypted with a public key, which is not supported');
  }
  // Every count in sight is checked, and so is the work they add up to: key derivation may start.
  const macDerivations = mac ? emptyPasswords.length : 0;
  const untold = mac ? 1 : emptyPasswords.length;
  const contentDerivations = worstDerivations(encrypted, untold);
  checkDerivations(macDerivations + contentDerivations + worstDerivations(shroudedKeys(found), untold));
  let passwords = mac ? [mac.verify(authenticatedSafe)] : emptyPasswords;
  for (const { encryption, ciphertext } of encrypted) {
    const { safeContents, password } = decryptSafeContents(encryption, ciphertext, passwords);
    // A file has one password: once a decryption tells which encoding, the next contents try no other.
    if (encryption.encodesPassword) passwords = [password];
    collectBags(safeContents, found, 0);
  }
  // Keys found inside encrypted data join the count before any key is decrypted.
  checkDerivations(
    macDerivations + contentDerivations + worstDerivations(shroudedKeys(found), passwords.length),
  );
  const keys = found.keys.map((key) => ('pkcs8' in key ? key : decryptKey(key, passwords)));
  return { certificates: found.certificates, keyIds: keys.map((key) => key.localKeyId), keys };
}

function shroudedKeys(found: Found): ShroudedKey[] {
  return found.keys.filter((key): key is ShroudedKey => !('pkcs8' in key));
}

/** Key derivations decrypting each of `items` costs when `passwords` encodings of the empty password are tried. */
function worstDerivations(items: readonly { readonly encryption: Encryption }[], passwords: number): number {
  return items.reduce(
    (sum, { encryption }) => sum + encryption.derivations * (encryption.encodesPassword ? passwords : 1),
    0,
  );
}

/** A shrouded key's EncryptedPrivateKeyInfo (RFC 5208 6) decrypted: DER filling it exactly, or a wrong password. */
function decryptKey(key: ShroudedKey, passwords: readonly Uint8Array[]): Pkcs12Key {
  let failure: unknown;
  for (const password of key.encryption.encodesPassword ? passwords : passwords.slice(0, 1)) {
    try {
      const pkcs8 = key.encryption.decrypt(key.ciphertext, password);
      elementsOf(parseDer(pkcs8), privateKeyInfoElements);
      return { pkcs8: new Uint8Array(pkcs8), localKeyId: key.localKeyId };
    } catch (error) {
      failure = error;
    }
  }
  throw new InvalidP12Error('holds a private key that does not decrypt without a password', {
    cause: failure,
  });
}

/** EncryptedData (RFC 5652 8) holding SafeContents, its encryption read and checked. */
function readEncryptedData(encryptedData: ASN1Value): { encryption: Encryption; ciphertext: Uint8Array } {
  const [, encryptedContentInfo] = elementsOf(encryptedData, 3);
  const [contentType, algorithm, encryptedContent] = elementsOf(encryptedContentInfo, 3);
  if (!isOid(contentType, oids.data)) throw new InvalidP12Error(notPasswordFreePkcs12);
  return {
    encryption: readEncryption(algorithm, "the encrypted data's"),
    ciphertext: implicitOctets(encryptedContent, 0),
  };
}

/** Without a MAC to tell which encoding of the empty password the file uses, each is tried. */
function decryptSafeContents(
  encryption: Encryption,
  ciphertext: Uint8Array,
  passwords: readonly Uint8Array[],
): { safeContents: ASN1Value; password: Uint8Array } {
  let failure: unknown;
  for (const password of encryption.encodesPassword ? passwords : passwords.slice(0, 1)) {
    try {
      return { safeContents: parseDer(encryption.decrypt(ciphertext, password)), password };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

function collectBags(safeContents: ASN1Value, found: Found, depth: number): void {
  const tooMany = `holds more than ${maxBags} bags`;
  for (const safeBag of elementsOf(safeContents, maxBags, { tooMany })) {
    if (++found.bags > maxBags) throw new InvalidP12Error(tooMany);
    const [bagId, bagValue, attributes] = elementsOf(safeBag, 3);
    const value = explicit(bagValue, 0);
    const isKey = isOid(bagId, oids.keyBag) || isOid(bagId, oids.shroudedKeyBag);
    if (isKey && found.keys.length === maxKeyBags)
      throw new InvalidP12Error(`holds more than ${maxKeyBags} private keys`);
    if (isOid(bagId, oids.keyBag)) {
      elementsOf(value, privateKeyInfoElements);
      found.keys.push({ pkcs8: encodeASN1(value), localKeyId: localKeyId(attributes) });
    } else if (isOid(bagId, oids.shroudedKeyBag)) {
      const [algorithm, encrypted] = elementsOf(value, 2);
      found.keys.push({
        encryption: readEncryption(algorithm, "the private key's"),
        ciphertext: octets(encrypted),
        localKeyId: localKeyId(attributes),
      });
    } else if (isOid(bagId, oids.certBag)) {
      const [certId, certValue] = elementsOf(value, 2);
      if (isOid(certId, oids.x509Certificate)) {
        found.certificates.push({ der: octets(explicit(certValue, 0)), localKeyId: localKeyId(attributes) });
      }
    } else if (isOid(bagId, oids.safeContentsBag)) {
      if (depth === maxNesting) throw new InvalidP12Error(`nests bags more than ${maxNesting} level deep`);
      collectBags(value, found, depth + 1);
    }
    // CRLs and secrets play no part in a push certificate.
  }
}

function localKeyId(attributes: ASN1Value | undefined): string | undefined {
  if (attributes === undefined) return undefined;
  for (const attribute of elementsOf(attributes, maxAttributes, { set: true })) {
    const [type, values] = elementsOf(attribute, 2);
    if (isOid(type, oids.localKeyId)) {
      const [value] = elementsOf(values, 1, { set: true });
      return Buffer.from(octets(value)).toString('hex');
    }
  }
  return undefined;
}
